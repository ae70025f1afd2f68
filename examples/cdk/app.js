// A small CDK app: a state machine that calls a Python function, which records each order in a
// DynamoDB table. `cdk synth` writes cdk.out/OrdersCdk.template.json, which deploys unchanged with
//   aws cloudformation deploy --template-file cdk.out/OrdersCdk.template.json \
//       --stack-name orders-cdk --capabilities CAPABILITY_IAM
// to onceflow (AWS_ENDPOINT_URL=http://127.0.0.1:4566) and to AWS.
//
// No bootstrap is needed: the function's code is inline (no assets to upload) and the stack has no
// bootstrap version check (that reads an SSM parameter a bootstrapped account has; onceflow serves
// no SSM). The runtime is context (`cdk synth -c runtime=python3.11`) so it can match the machine.
const cdk = require("aws-cdk-lib");
const dynamodb = require("aws-cdk-lib/aws-dynamodb");
const lambda = require("aws-cdk-lib/aws-lambda");
const sfn = require("aws-cdk-lib/aws-stepfunctions");
const tasks = require("aws-cdk-lib/aws-stepfunctions-tasks");

const HANDLER = `
import os
import boto3

table = boto3.resource("dynamodb").Table(os.environ["TABLE"])


def handler(event, context):
    table.put_item(Item={"pk": event["orderId"], "status": "recorded"})
    return {"orderId": event["orderId"], "status": "recorded"}
`;

class OrdersStack extends cdk.Stack {
  constructor(scope, id, props) {
    super(scope, id, props);
    const runtime = this.node.tryGetContext("runtime") || "python3.12";
    const table = new dynamodb.Table(this, "Orders", {
      partitionKey: { name: "pk", type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      removalPolicy: cdk.RemovalPolicy.DESTROY,
    });
    const record = new lambda.Function(this, "Record", {
      runtime: new lambda.Runtime(runtime, lambda.RuntimeFamily.PYTHON, { supportsInlineCode: true }),
      handler: "index.handler",
      code: lambda.Code.fromInline(HANDLER),
      environment: { TABLE: table.tableName },
    });
    table.grantWriteData(record);
    const machine = new sfn.StateMachine(this, "Flow", {
      definitionBody: sfn.DefinitionBody.fromChainable(
        new tasks.LambdaInvoke(this, "RecordOrder", { lambdaFunction: record, outputPath: "$.Payload" })
          .next(new sfn.Succeed(this, "Done"))),
    });
    new cdk.CfnOutput(this, "TableName", { value: table.tableName });
    new cdk.CfnOutput(this, "StateMachineArn", { value: machine.stateMachineArn });
  }
}

const app = new cdk.App();
new OrdersStack(app, "OrdersCdk", {
  synthesizer: new cdk.DefaultStackSynthesizer({ generateBootstrapVersionRule: false }),
});
