"""The pure rules: no boto3, no HTTP, no storage. What a slip change does to which items (posting),
card billing cycles (billing), recurring schedules and the business-day calendar (recurrence), and
who owes whom (settle). Services use them; they use nothing of the services, the store or HTTP."""
