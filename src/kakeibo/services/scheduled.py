"""Slips the system posts on a schedule (recurring slips, card payments, points that lapse): each through the one create
path under an id derived from what it is, once, and a failure kept to be tried again next run. One
context posts them (the member who set them up, while still an editor), one tally counts a run, and
one clock says when a run must stop starting new work."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from kakeibo import errors, messages
from kakeibo.models.slips import SlipIn
from kakeibo.services.common import TimeLeft, now_iso
from kakeibo.services.slips import create_slip
from kakeibo.store import SharedLedger, SlipIdTaken, Store, TxOp, WriteContext

POSTERS = ("owner", "editor")  # the roles a scheduled post is written under, on a shared ledger
MIN_SECONDS_LEFT = 2.0  # a run starts no new work with less than this left


def poster_for(ledger: str, by: object, origin: str) -> WriteContext | None:
    """The context scheduled slips post in: on a shared ledger the member who set them up (`by`), who
    must still be an editor or owner when each post commits (None: nobody to post as); on a personal
    ledger its owner."""
    if isinstance(ledger, SharedLedger):
        return WriteContext.member(ledger, str(by), POSTERS, origin=origin) if by else None
    return WriteContext.personal(str(ledger), origin=origin)


def out_of_time(time_left: TimeLeft | None) -> bool:
    return time_left is not None and time_left() < MIN_SECONDS_LEFT


@dataclass
class RunTally:
    until: dt.date
    complete: bool = True
    posted: int = 0
    failed: list[dict[str, Any]] = field(default_factory=list)

    def result(self, lang: messages.Lang = "en") -> dict[str, Any]:
        return {
            "until": self.until.isoformat(),
            "complete": self.complete,
            "posted": self.posted,
            "failed": [worded(failure, lang) for failure in self.failed],
        }


def worded(error: dict[str, Any] | None, lang: messages.Lang) -> dict[str, Any] | None:
    """A kept failure as the caller reads it: its detail in their language (from its code and
    members, as a problem's is), without the members it was worded from."""
    if error is None:
        return None
    out = {k: v for k, v in error.items() if k != "context"}
    out["detail"] = messages.detail(str(error["code"]), str(error["detail"]), error.get("context") or {}, lang)
    return out


def kept_error(
    date: dt.date, scheduled: dt.date, code: str, detail: str, context: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A failure to keep: the day it was to post, what names it (a scheduled date, a closing date), the
    English detail, and the members that word it in any language."""
    return {
        "date": date.isoformat(),
        "scheduled": scheduled.isoformat(),
        "code": code,
        "detail": detail,
        "context": json.loads(json.dumps(context or {}, ensure_ascii=False, default=str)),
        "at": now_iso(),
    }


def same_error(new: dict[str, Any] | None, old: dict[str, Any] | None) -> bool:
    """Whether a run has nothing new to say: the same failure of the same posting (or none)."""

    def key(error: dict[str, Any] | None) -> tuple[Any, ...] | None:
        return None if error is None else (error["scheduled"], error["code"], error["detail"])

    return key(new) == key(old)


def post(
    store: Store,
    poster: WriteContext,
    body: dict[str, Any],
    *,
    slip_id: str,
    conditions: tuple[TxOp, ...] = (),
    when: tuple[dt.date, dt.date],
    revoked: str,
    model: type[SlipIn] = SlipIn,
) -> dict[str, Any] | bool | None:
    """Create the slip `body` as `slip_id`: True when this call created it, None when it exists
    already (another run was first), else the failure to keep (`when`: its date and what names it;
    `revoked`: what to say when the poster is no longer an editor; `model`: what the body is, a slip
    or one that says more, such as the lot a lapse is of)."""
    try:
        create_slip(store, poster, model.model_validate(body), slip_id=slip_id, conditions=conditions)
    except SlipIdTaken:
        return None  # another run created it a moment ago
    except (errors.NoLongerMember, errors.RoleRevoked):
        return kept_error(*when, "forbidden", revoked)
    except errors.ApiError as exc:
        return kept_error(*when, exc.code, exc.detail, exc.context)
    except ValidationError as exc:
        return kept_error(*when, "validation_error", str(exc.errors()[0]["msg"]))
    return True
