"""Development only: run the API on this machine with DynamoDB Local and an API Gateway-like front.

Nothing here is imported by the Lambda handler.
"""
