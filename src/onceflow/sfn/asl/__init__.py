"""The Amazon States Language as pure functions: no I/O, no store, no wire.

What the engine calls (all compile their text once and cache it):
- load:       load(text) -> nodes.Machine: the definition as typed, frozen nodes (states with their
              next state, query language, retriers, catchers, Resource, branches, processor).
- paths:      resolve_path(path, data, context, variables) for `$`, `$$` and `$var` paths;
              apply_result_path, to_json, is_valid_path / is_reference_path.
- payload:    evaluate_payload_template(template, data, context, variables) for Parameters,
              ResultSelector, ItemSelector and JSONPath Assign.
- intrinsics: evaluate_intrinsic(expression, data, context, variables).
- choice:     evaluate_choice_rule(rule, data, context, variables, states) (JSONPath operators and
              JSONata `Condition`).
- jsonata:    is_jsonata, evaluate_jsonata(text, states, variables, field=...), evaluate_template,
              expect_type.
- retry:      error_matches, find_retrier, find_catcher, should_retry, retry_delay_seconds (on the
              nodes' Retrier and Catcher), catch_output.
- check:      validate_definition(text, machine_type) -> [Diagnostic], definition_error_message,
              validation_result.
- resources:  parse_resource(arn) -> Resource(kind, service, action, pattern).

Failures are `errors.StateDataError` (error name + the detail AWS writes); the engine turns them
into the recorded cause with `.in_state(state_name, entered_event_id)`, which adds AWS's
"An error occurred while executing the state 'X' (entered at the event id #n). " prefix.
"""
