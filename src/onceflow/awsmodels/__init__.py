"""AWS's service models (the JSON botocore ships), read without importing botocore: files.py finds
and reads them, model.py is the view of operations and shapes the wire layer walks."""
