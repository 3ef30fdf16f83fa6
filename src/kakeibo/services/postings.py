"""Slips the system posts on a schedule (recurring slips, card payments): each through the one create
path under an id derived from what it is, once, and a failure kept to be tried again next run."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from pydantic import ValidationError

from kakeibo import errors
from kakeibo.models import SlipIn
from kakeibo.services.common import now_iso
from kakeibo.services.slips import create_slip
from kakeibo.store import SlipIdTaken, Store, TxOp, WriteContext


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
) -> dict[str, Any] | bool | None:
    """Create the slip `body` as `slip_id`: True when this call created it, None when it exists
    already (another run was first), else the failure to keep (`when`: its date and what names it;
    `revoked`: what to say when the poster is no longer an editor)."""
    try:
        create_slip(store, poster, SlipIn.model_validate(body), slip_id=slip_id, conditions=conditions)
    except SlipIdTaken:
        return None  # another run created it a moment ago
    except (errors.NoLongerMember, errors.RoleRevoked):
        return kept_error(*when, "forbidden", revoked)
    except errors.ApiError as exc:
        return kept_error(*when, exc.code, exc.detail, exc.context)
    except ValidationError as exc:
        return kept_error(*when, "validation_error", str(exc.errors()[0]["msg"]))
    return True
