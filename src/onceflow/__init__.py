"""onceflow: a local, AWS-compatible serverless stack."""

__version__ = "0.1.0"
