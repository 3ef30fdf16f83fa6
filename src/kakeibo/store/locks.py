"""Lease locks: LOCK#{name} items taken with a conditional Put, renewed and released by owner."""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass

from kakeibo import errors
from kakeibo.store.codec import Item, to_ddb
from kakeibo.store.keys import lock_sk, pk
from kakeibo.store.transactions import ConditionFailed, StoreCore, TxOp, seconds_until


@dataclass(frozen=True)
class Lease:
    """A lease lock held until `expires_at` (epoch ms) by whoever knows `owner`."""

    ledger: str
    name: str
    owner: str
    expires_at: int


class LockOps:
    """Take, renew, release and check leases. A lock is one item, LOCK#{name}: taken with a
    conditional Put that succeeds only if nobody holds it or the holder's lease has expired;
    renewed and released only by its owner token."""

    def __init__(self, core: StoreCore) -> None:
        self.core = core

    def acquire_lock(self, ledger: str, name: str, ttl: float, owner: str | None = None) -> Lease:
        """Take the lease for `ttl` seconds, or raise Locked naming when the holder's lease ends."""
        now = self.core.now_ms()
        lease = Lease(ledger, name, owner or uuid.uuid4().hex, now + math.ceil(ttl * 1000))
        try:
            self.core.write_one(
                self.core.client.put_item,
                Item=to_ddb(
                    {
                        "PK": pk(ledger),
                        "SK": lock_sk(name),
                        "type": "lock",
                        "lock": name,
                        "owner": lease.owner,
                        "expires_at": lease.expires_at,
                        "acquired_at": now,
                    }
                ),
                ConditionExpression="attribute_not_exists(SK) OR #exp < :now",
                ExpressionAttributeNames={"#exp": "expires_at"},
                ExpressionAttributeValues=to_ddb({":now": now}),
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ConditionFailed as failed:
            until = int(failed.item.get("expires_at", now)) if failed.item else now
            raise errors.Locked(
                f"the {name} lock is held by another process", retry_after=seconds_until(until, now)
            ) from failed
        return lease

    def renew_lock(self, lease: Lease, ttl: float) -> Lease | None:
        """Extend a lease we still hold (ours and not expired). None if it was lost."""
        now = self.core.now_ms()
        renewed = Lease(lease.ledger, lease.name, lease.owner, now + math.ceil(ttl * 1000))
        if not self.core.conditional(
            self.core.client.update_item,
            Key=to_ddb({"PK": pk(lease.ledger), "SK": lock_sk(lease.name)}),
            UpdateExpression="SET #exp = :exp",
            ConditionExpression="#owner = :me AND #exp >= :now",
            ExpressionAttributeNames={"#owner": "owner", "#exp": "expires_at"},
            ExpressionAttributeValues=to_ddb({":me": lease.owner, ":now": now, ":exp": renewed.expires_at}),
        ):
            return None
        return renewed

    def release_lock(self, lease: Lease) -> bool:
        """Delete the lock if `lease` still owns it. False if someone else holds it by now."""
        return self.core.conditional(
            self.core.client.delete_item,
            Key=to_ddb({"PK": pk(lease.ledger), "SK": lock_sk(lease.name)}),
            ConditionExpression="#owner = :me",
            ExpressionAttributeNames={"#owner": "owner"},
            ExpressionAttributeValues=to_ddb({":me": lease.owner}),
        )

    def lock_free_op(self, ledger: str, name: str) -> TxOp:
        """A transaction step that fails (Locked) while anybody holds a live lease on `name`."""
        now = self.core.now_ms()

        def fail(item: Item | None) -> errors.ApiError:
            until = int((item or {}).get("expires_at", now))
            return errors.Locked(f"the {name} lock is held; retry shortly", retry_after=seconds_until(until, now))

        return TxOp(
            "ConditionCheck",
            {
                "TableName": self.core.table,
                "Key": to_ddb({"PK": pk(ledger), "SK": lock_sk(name)}),
                "ConditionExpression": "attribute_not_exists(SK) OR #exp < :now",
                "ExpressionAttributeNames": {"#exp": "expires_at"},
                "ExpressionAttributeValues": to_ddb({":now": now}),
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            },
            fail,
        )

    def lock_held_op(self, lease: Lease, margin: float = 5.0) -> TxOp:
        """A transaction step that fails unless `lease` is still ours for at least `margin` seconds
        (the margin absorbs clock skew between the holder and everybody checking the lease)."""
        soon = self.core.now_ms() + math.ceil(margin * 1000)
        return TxOp(
            "ConditionCheck",
            {
                "TableName": self.core.table,
                "Key": to_ddb({"PK": pk(lease.ledger), "SK": lock_sk(lease.name)}),
                "ConditionExpression": "#owner = :me AND #exp > :soon",
                "ExpressionAttributeNames": {"#owner": "owner", "#exp": "expires_at"},
                "ExpressionAttributeValues": to_ddb({":me": lease.owner, ":soon": soon}),
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            },
            lambda item: errors.Conflict(f"the {lease.name} lock was lost before the work was done"),
        )
