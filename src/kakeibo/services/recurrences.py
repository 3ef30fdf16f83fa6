"""Recurring slips: define them, preview their dates, and post what is due through the one create path.

Each occurrence is a slip whose id comes from (recurrence, scheduled date) and which is created by
`services.slips.create_slip`, so running twice, from many processes at once, or after the recurrence was
edited posts it once. An occurrence that cannot be written (insufficient funds, an archived account,
a strict budget...) is kept as `last_error`; the recurrence does not move past it, and the next run
tries it again. Editing a recurrence changes the occurrences not posted yet, never the slips posted.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from kakeibo import errors, messages
from kakeibo.core import recurrence
from kakeibo.core.ids import derived_id, new_slip_id
from kakeibo.core.recurrence import Occurrence
from kakeibo.models.recurrences import RecurrenceIn
from kakeibo.models.slips import SlipIn
from kakeibo.services import units
from kakeibo.services.accounts import get_account
from kakeibo.services.common import (
    TimeLeft,
    check_version,
    invalid,
    now_iso,
    on_current,
    query_date,
    valid_id,
)
from kakeibo.services.scheduled import RunTally, kept_error, out_of_time, post, poster_for, same_error, worded
from kakeibo.settings import today
from kakeibo.store import Bookkeeping, Change, Item, Store, WriteContext
from kakeibo.store.recurrences import ProgressConflict

# Who may post a recurrence's slips: its author must still be an owner or editor of a shared ledger.

MAX_POSTS_PER_RECURRENCE = 500  # per run; a long backlog continues on the next run
MAX_PREVIEW_DAYS = 1830
MAX_RECURRENCES = 200  # per ledger: a run goes through all of them
PROGRESS_ATTEMPTS = 5


# ---- definitions ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Definition:
    """A stored recurrence as the schedule sees it."""

    id: str
    version: int
    slip: dict[str, Any]
    rule: dict[str, Any]
    shift: recurrence.Shift
    posted_through: dt.date | None
    last_error: dict[str, Any] | None

    @classmethod
    def of(cls, item: Item) -> Definition:
        posted = item.get("posted_through")
        return cls(
            id=item["id"],
            version=int(item["version"]),
            slip=json.loads(item["slip"]),
            rule=json.loads(item["rule"]),
            shift=item["shift"],
            posted_through=dt.date.fromisoformat(posted) if posted else None,
            last_error=json.loads(item["last_error"]) if item.get("last_error") else None,
        )

    @property
    def schedule(self) -> recurrence.Rule:
        return schedule_rule(self.rule)

    def next(self, after: dt.date | None) -> Occurrence | None:
        return recurrence.next_occurrence(self.schedule, self.shift, after=after)


def schedule_rule(rule: dict[str, Any]) -> recurrence.Rule:
    days = rule.get("by_month_day")
    if days is not None and not isinstance(days, list):
        days = [days]
    return recurrence.Rule(
        freq=rule["freq"],
        start=dt.date.fromisoformat(rule["start"]),
        interval=int(rule.get("interval", 1)),
        by_weekday=tuple(recurrence.WEEKDAYS.index(w) for w in rule.get("by_weekday") or ()),
        by_month_day=tuple(recurrence.LAST_DAY if d == "last" else int(d) for d in days or ()),
        until=dt.date.fromisoformat(rule["until"]) if rule.get("until") else None,
        count=rule.get("count"),
    )


def _definition_fields(body: RecurrenceIn) -> dict[str, Any]:
    return {
        "slip": json.dumps(body.slip.model_dump(exclude_none=True), ensure_ascii=False, sort_keys=True),
        "rule": json.dumps(body.rule.model_dump(exclude_none=True), ensure_ascii=False, sort_keys=True),
        "shift": body.shift,
    }


def _progress_fields(next_occurrence: Occurrence | None) -> dict[str, Any]:
    return {
        "next_scheduled": next_occurrence.scheduled.isoformat() if next_occurrence else None,
        "next_due": next_occurrence.date.isoformat() if next_occurrence else None,
    }


def recurrence_view(item: Item, lang: messages.Lang = "en") -> dict[str, Any]:
    return {
        "id": item["id"],
        "slip": json.loads(item["slip"]),
        "rule": json.loads(item["rule"]),
        "shift": item["shift"],
        "next_due": item.get("next_due"),
        "next_scheduled": item.get("next_scheduled"),
        "posted_through": item.get("posted_through"),
        "last_error": worded(json.loads(item["last_error"]) if item.get("last_error") else None, lang),
        "version": int(item["version"]),
        "created_at": item["created_at"],
        "updated_at": item["updated_at"],
    }


def recurrence_record(item: Item | None) -> dict[str, Any] | None:
    """A recurrence as the journal keeps it: its definition (how far runs got is not a change)."""
    if item is None:
        return None
    return {
        "id": item["id"],
        "slip": json.loads(item["slip"]),
        "rule": json.loads(item["rule"]),
        "shift": item["shift"],
        "version": int(item["version"]),
        "created_at": item["created_at"],
        "updated_at": item["updated_at"],
        "created_by": item.get("created_by"),
        "updated_by": item.get("updated_by"),
    }


def recurrence_change(before: Item | None, after: Item | None) -> Change:
    old, new = recurrence_record(before), recurrence_record(after)
    return Change.between("recurrence", str((new or old or {})["id"]), old, new)


def author(item: Item) -> str | None:
    """Whose write a recurrence's posts are: the member who last defined it (created or edited it)."""
    found = item.get("updated_by") or item.get("created_by")
    return str(found) if found else None


def _read(store: Store, ledger: str, recurrence_id: str) -> Item:
    item = store.recurrences.read_recurrence(ledger, recurrence_id) if valid_id(recurrence_id) else None
    if item is None:
        raise errors.NotFound("recurrence not found")
    return item


def create_recurrence(
    store: Store,
    ctx: WriteContext,
    body: RecurrenceIn,
    *,
    recurrence_id: str | None = None,
    request_token: str | None = None,
) -> dict[str, Any]:
    """Store a new recurrence. With a request token (Idempotency-Key) its id derives from the token,
    so a retry answers the recurrence the first attempt created instead of making a second one."""
    ledger = ctx.ledger
    if sum(1 for _ in store.recurrences.list_recurrences(ledger, keys_only=True)) >= MAX_RECURRENCES:
        raise errors.LimitReached(f"a ledger holds at most {MAX_RECURRENCES} recurrences", limit=MAX_RECURRENCES)
    _check_accounts(store, ledger, body)
    definition = _definition_fields(body)
    fingerprint = hashlib.sha256(json.dumps(definition, sort_keys=True).encode()).hexdigest()
    if request_token:
        recurrence_id = recurrence_id or derived_id(f"recurrence\n{request_token}")
    recurrence_id = recurrence_id or new_slip_id()
    first = recurrence.next_occurrence(schedule_rule(json.loads(definition["rule"])), body.shift)
    stamp = now_iso()
    item: Item = {
        "type": "recurrence",
        "id": recurrence_id,
        **definition,
        **_progress_fields(first),
        "version": 1,
        "created_at": stamp,
        "updated_at": stamp,
        "created_by": ctx.actor,
        "request_token": request_token,
        "fingerprint": fingerprint,
    }
    try:
        stored = {k: v for k, v in item.items() if v is not None}
        store.recurrences.insert_recurrence(ctx, stored, changes=[recurrence_change(None, stored)])
    except errors.AlreadyExists:
        existing = store.recurrences.read_recurrence(ledger, recurrence_id)
        if request_token and existing and existing.get("request_token") == request_token:
            if existing.get("fingerprint") != fingerprint:
                raise errors.IdempotencyKeyReused(
                    "this Idempotency-Key was used with a different request body; use a new key"
                ) from None
            return recurrence_view(existing)
        raise
    return recurrence_view(item)


def _check_accounts(store: Store, ledger: str, body: RecurrenceIn) -> None:
    """The accounts the slip names exist and are open now (each run checks again, in its transaction)."""
    for field_name in ("account", "to_account"):
        account = getattr(body.slip, field_name)
        if account is None:
            continue
        try:
            archived = get_account(store, ledger, account)["archived"]
        except errors.NotFound:
            archived = None
        if archived is not False:
            problem = "does not exist" if archived is None else "is archived"
            message = f"account '{account}' {problem}"
            raise errors.ValidationFailed(message, errors=[{"loc": ["body", "slip", field_name], "msg": message}])
    # what the accounts' units need (a foreign account's jpy_amount, a transfer's to_amount), as a slip would
    template = SlipIn.model_validate({"date": "2000-01-01", **body.slip.model_dump(exclude_none=True)})
    try:
        units.priced(store, ledger, template)
    except errors.ValidationFailed as exc:
        found = [{**e, "loc": ["body", "slip", e["loc"][-1]]} for e in exc.context.get("errors") or []]
        raise errors.ValidationFailed(exc.detail, errors=found) from None


def get_recurrence(store: Store, ledger: str, recurrence_id: str, lang: messages.Lang = "en") -> dict[str, Any]:
    return recurrence_view(_read(store, ledger, recurrence_id), lang)


def list_recurrences(store: Store, ledger: str, lang: messages.Lang = "en") -> list[dict[str, Any]]:
    return [recurrence_view(item, lang) for item in store.recurrences.list_recurrences(ledger)]


def merge(target: Any, patch: Any) -> Any:
    """RFC 7396 JSON merge patch."""
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge(out.get(key), value)
    return out


def patch_recurrence(
    store: Store,
    ctx: WriteContext,
    recurrence_id: str,
    patch: dict[str, Any],
    *,
    expected: int | None,
    undoes: int | None = None,
) -> dict[str, Any]:
    """Change the definition (If-Match). Occurrences already posted stay as they are; the next one is
    the new rule's first occurrence scheduled after the last one posted. Whoever edits it becomes the
    member its slips are posted as."""
    ledger = ctx.ledger
    for _ in range(PROGRESS_ATTEMPTS):
        item = _read(store, ledger, recurrence_id)
        current = Definition.of(item)
        version = check_version(current.version, expected)
        merged = merge({"slip": current.slip, "rule": current.rule, "shift": current.shift}, patch)
        try:
            body = RecurrenceIn.model_validate(merged)
        except ValidationError as exc:
            raise invalid(exc, "the patched recurrence is not valid") from exc
        units.check_repriced(current.slip, patch.get("slip") or {}, body.slip.amount, at=("body", "slip"))
        fields = _definition_fields(body)
        if all(item[name] == value for name, value in fields.items()):
            return recurrence_view(item)
        if fields["slip"] != item["slip"]:
            _check_accounts(store, ledger, body)
        upcoming = recurrence.next_occurrence(
            schedule_rule(body.rule.model_dump()), body.shift, after=current.posted_through
        )
        fields.update(_progress_fields(upcoming))
        fields.update({"last_error": None, "updated_at": now_iso(), "updated_by": ctx.actor})
        updated = {k: v for k, v in {**item, **fields, "version": version + 1}.items() if v is not None}
        try:
            store.recurrences.replace_definition(
                ctx,
                recurrence_id,
                fields,
                version=version,
                posted_through=item.get("posted_through"),
                changes=[recurrence_change(item, updated)],
                undoes=undoes,
            )
        except ProgressConflict:
            continue  # a run posted meanwhile: recompute from where it got
        return recurrence_view(updated)
    raise errors.Conflict("the recurrence is busy being run; retry", retry_after=1)


def redefine(
    store: Store, ctx: WriteContext, recurrence_id: str, definition: dict[str, Any], *, version: int, undoes: int
) -> None:
    """The definition replaced whole (undo of an edit), at `version`."""
    current = Definition.of(_read(store, ctx.ledger, recurrence_id))
    patch: dict[str, Any] = {"shift": definition["shift"]}
    for part, now in (("slip", current.slip), ("rule", current.rule)):
        wanted = definition[part]
        patch[part] = {key: wanted.get(key) for key in {*now, *wanted}}  # absent keys removed
    patch_recurrence(store, ctx, recurrence_id, patch, expected=version, undoes=undoes)


def remove_recurrence(store: Store, ctx: WriteContext, recurrence_id: str, *, version: int, undoes: int) -> None:
    """The recurrence deleted at `version` (undo of its creation); the slips it posted stay."""
    item = _read(store, ctx.ledger, recurrence_id)
    store.recurrences.delete_recurrence(
        ctx, recurrence_id, version=version, expected=version, changes=[recurrence_change(item, None)],
        at=now_iso(), undoes=undoes,
    )  # fmt: skip


def restore_recurrence(store: Store, ctx: WriteContext, record: dict[str, Any], *, undoes: int) -> None:
    """A deleted recurrence back with its own id (undo of its delete). Occurrences it posted before
    keep their slips: their ids are taken, so runs skip them."""
    body = RecurrenceIn.model_validate({"slip": record["slip"], "rule": record["rule"], "shift": record["shift"]})
    definition = _definition_fields(body)
    first = recurrence.next_occurrence(schedule_rule(json.loads(definition["rule"])), body.shift)
    stamp = now_iso()
    item: Item = {
        "type": "recurrence",
        "id": record["id"],
        **definition,
        **_progress_fields(first),
        "version": int(record["version"]) + 2,  # past the delete's own version
        "created_at": record["created_at"],
        "updated_at": stamp,
        "created_by": record.get("created_by"),
        "updated_by": ctx.actor,
    }
    stored = {k: v for k, v in item.items() if v is not None}
    store.recurrences.insert_recurrence(ctx, stored, changes=[recurrence_change(None, stored)], undoes=undoes)


def delete_recurrence(store: Store, ctx: WriteContext, recurrence_id: str, *, expected: int | None) -> None:
    def attempt() -> None:
        item = _read(store, ctx.ledger, recurrence_id)
        version = check_version(int(item["version"]), expected)
        store.recurrences.delete_recurrence(
            ctx, recurrence_id, version=version, expected=expected, changes=[recurrence_change(item, None)],
            at=now_iso(),
        )  # fmt: skip

    on_current(attempt)


def occurrences(
    store: Store, ledger: str, recurrence_id: str, date_from: str | None, date_to: str | None
) -> dict[str, Any]:
    """The occurrences posting between from and to: scheduled and shifted dates, and whether each
    is posted, deleted (posted, then its slip deleted or its post undone: never posted again),
    failed (last_error) or pending. Costs one read, whatever the range, and one batch read of the
    identities of the slips it posted in the range (100 per call): a slip's identity is its
    tombstone once it is deleted."""
    start = query_date("from", date_from) if date_from else today()
    end = query_date("to", date_to) if date_to else start + dt.timedelta(days=365)
    if start > end:
        raise errors.BadRequest("'from' is after 'to'")
    if (end - start).days >= MAX_PREVIEW_DAYS:
        raise errors.BadRequest(f"at most {MAX_PREVIEW_DAYS} days per request")
    current = Definition.of(_read(store, ledger, recurrence_id))
    failed = current.last_error["scheduled"] if current.last_error else None
    found = list(recurrence.preview(current.schedule, current.shift, start, end))
    through = current.posted_through
    posted = [
        recurrence.occurrence_slip_id(current.id, o.scheduled) for o in found if through and o.scheduled <= through
    ]
    identities = store.slips.slip_identities(ledger, posted) if posted else {}
    items = []
    for occurrence in found:
        scheduled = occurrence.scheduled.isoformat()
        slip_id = recurrence.occurrence_slip_id(current.id, occurrence.scheduled)
        if through is not None and occurrence.scheduled <= through:
            identity = identities.get(slip_id)
            status = "deleted" if identity is not None and identity.get("deleted") else "posted"
        elif scheduled == failed:
            status = "failed"
        else:
            status = "pending"
        items.append(
            {
                "scheduled": scheduled,
                "date": occurrence.date.isoformat(),
                "shifted": occurrence.date != occurrence.scheduled,
                "status": status,
                "slip_id": slip_id,
            }
        )
    return {"id": current.id, "from": start.isoformat(), "to": end.isoformat(), "items": items}


# ---- runs -----------------------------------------------------------------------------------


def already_posted(store: Store, ledger: str, slip_id: str) -> bool:
    """Whether the occurrence's slip was created already: the one place a run asks.

    It reads the slip's identity item (`ID#{slip_id}`), which follows the slip when its date is
    changed and stays as a tombstone when it is deleted: a slip posted once is never posted again,
    wherever it went. The create is the guard that cannot be raced: the identity is written
    `attribute_not_exists` in the slip's own transaction, and a taken id raises `SlipIdTaken`."""
    return store.slips.slip_identity(ledger, slip_id) is not None


def run_ledger_recurrences(store: Store, ledger: str, tally: RunTally, *, time_left: TimeLeft | None = None) -> None:
    """Every recurrence of the ledger: its occurrences due by `tally.until`."""
    for item in store.recurrences.list_recurrences(ledger):
        if out_of_time(time_left):
            tally.complete = False
            break
        run_recurrence(store, ledger, item, tally, time_left=time_left)  # posted as each one's author


def run_ledger(
    store: Store, ledger: str, until: str | None, *, time_left: TimeLeft | None = None, lang: messages.Lang = "en"
) -> dict[str, Any]:
    """POST /recurrences/run: post every occurrence of this ledger due on or before `until`."""
    tally = RunTally(query_date("until", until) if until else today())
    run_ledger_recurrences(store, ledger, tally, time_left=time_left)
    return tally.result(lang)


def run_due(store: Store, ledger: str, recurrence_id: str, tally: RunTally, *, time_left: TimeLeft | None) -> None:
    """The daily job's turn for one recurrence the due index lists."""
    item = store.recurrences.read_recurrence(ledger, recurrence_id)
    if item is None or not item.get("next_due") or item["next_due"] > tally.until.isoformat():
        return  # the index is eventually consistent: changed since
    run_recurrence(store, ledger, item, tally, time_left=time_left)


def run_recurrence(
    store: Store, ledger: str, item: Item, tally: RunTally, *, time_left: TimeLeft | None = None
) -> None:
    """Post the recurrence's occurrences due by `tally.until`, in order, as its author, stopping at
    the first that fails (kept as last_error, tried again next run), then save how far it got. Each
    post commits only while the recurrence is still at the version it was read at: once an edit or
    a delete has answered, nothing of the old definition is posted."""
    current = Definition.of(item)
    poster = poster_for(ledger, author(item), "recurrence")
    posted_through = current.posted_through
    error: dict[str, Any] | None = None
    for count, occurrence in enumerate(
        recurrence.due(current.schedule, current.shift, tally.until, after=posted_through)
    ):
        if count >= MAX_POSTS_PER_RECURRENCE or out_of_time(time_left):
            tally.complete = False
            break
        try:
            error = _post(store, poster, current, occurrence, tally)
        except ProgressConflict:
            return  # edited or deleted meanwhile: the next run goes on from the new definition
        if error is not None:
            tally.failed.append(
                {"recurrence": current.id, **{k: error[k] for k in ("date", "scheduled", "code", "detail", "context")}}
            )
            break
        posted_through = occurrence.scheduled
    if posted_through == current.posted_through and same_error(error, current.last_error):
        return  # nothing new to say
    _save_progress(store, ledger, current, posted_through, error)


def _post(
    store: Store, poster: WriteContext | None, current: Definition, occurrence: Occurrence, tally: RunTally
) -> dict[str, Any] | None:
    """Create the occurrence's slip unless it exists; the error to keep if it cannot be written."""
    when = (occurrence.date, occurrence.scheduled)
    if poster is None:
        return kept_error(*when, "forbidden", "this recurrence has no author to post as; edit it to post as you")
    slip_id = recurrence.occurrence_slip_id(current.id, occurrence.scheduled)
    if already_posted(store, poster.ledger, slip_id):
        return None
    unchanged = store.recurrences.recurrence_unchanged_op(poster.ledger, current.id, current.version)
    posted = post(
        store,
        poster,
        {**current.slip, "date": occurrence.date.isoformat()},
        slip_id=slip_id,
        conditions=(unchanged,),
        when=when,
        revoked="the member this recurrence posts as is no longer an editor; an editor can edit it to post as them",
    )
    if posted is True:
        tally.posted += 1
        return None
    return posted or None


def _save_progress(
    store: Store, ledger: str, current: Definition, posted_through: dt.date | None, error: dict[str, Any] | None
) -> None:
    """Record how far the run got. If the definition was edited meanwhile, what was posted stays
    posted and the next occurrence comes from the new rule; if another run got further, it stands."""
    for _ in range(PROGRESS_ATTEMPTS):
        upcoming = current.next(posted_through)
        try:
            store.recurrences.record_progress(
                Bookkeeping(ledger),
                current.id,
                version=current.version,
                posted_through=posted_through.isoformat() if posted_through else None,
                next_scheduled=upcoming.scheduled.isoformat() if upcoming else None,
                next_due=upcoming.date.isoformat() if upcoming else None,
                last_error=json.dumps(error, ensure_ascii=False) if error else None,
            )
            return
        except ProgressConflict:
            item = store.recurrences.read_recurrence(ledger, current.id)
            if item is None:
                return  # deleted meanwhile: its slips stay, there is nothing to record
            latest = Definition.of(item)
            if latest.version == current.version:
                return  # another run is further on
            current, error = latest, None
            if latest.posted_through is not None and (posted_through is None or latest.posted_through > posted_through):
                posted_through = latest.posted_through
