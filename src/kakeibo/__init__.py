"""Kakeibo API: a household ledger on AWS Lambda, API Gateway and DynamoDB."""

__version__ = "0.1.0"
