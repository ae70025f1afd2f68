"""sts: built by the iam package's setup (STS sessions live beside IAM roles)."""
