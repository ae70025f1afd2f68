import helper


def handler(event, context):
    return {"greeting": helper.greet(event["name"])}
