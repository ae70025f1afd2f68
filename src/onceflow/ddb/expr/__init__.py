"""DynamoDB expressions: one lexer and grammar (parser.py), one AST (ast.py), then validate.py,
evaluate.py and update.py. Pure: no I/O, no store, no wire."""
