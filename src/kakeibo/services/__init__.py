"""Use cases: what each API operation does, in terms of core/ (pure) and store (DynamoDB).

One module per resource, mirroring routes/. No HTTP here: routes parse requests and format
responses; services decide, and write through the store's intention-named operations.
"""
