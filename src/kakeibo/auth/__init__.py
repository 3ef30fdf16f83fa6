"""Who is calling: the API's Lambda authorizer (template.yaml's `AuthorizerFunction`) and its two
kinds of credential, the user pool's JWTs (jwt.py) and personal access tokens (services/tokens.py)."""
