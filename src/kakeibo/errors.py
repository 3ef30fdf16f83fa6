"""Typed errors. Each carries its HTTP status and a stable machine-readable code.

They are mapped to `application/problem+json` in exactly one place (handler.py), worded in the
caller's language by the message catalogue (messages.py): raise sites give an English detail and
typed members; the code and the members never depend on the language.
"""

from __future__ import annotations

from typing import Any, ClassVar

from kakeibo import messages


class ApiError(Exception):
    status: ClassVar[int] = 500
    code: ClassVar[str] = "internal_error"
    title: ClassVar[str] = "Internal error"

    def __init__(self, detail: str | None = None, **context: Any) -> None:
        super().__init__(detail or self.title)
        self.detail = detail or self.title
        self.context = context
        self.headers: dict[str, str] = {}
        if "retry_after" in context:
            self.headers["Retry-After"] = str(context["retry_after"])

    def problem(self, lang: messages.Lang = "en") -> dict[str, Any]:
        body: dict[str, Any] = {
            "type": f"https://kakeibo.dev/problems/{self.code.replace('_', '-')}",
            "title": messages.title(self.code, self.title, lang),
            "status": self.status,
            "detail": messages.detail(self.code, self.detail, self.context, lang),
            "code": self.code,
        }
        body.update(self.context)
        if isinstance(body.get("errors"), list):  # each field error's msg, worded like the detail
            body["errors"] = messages.field_errors_in(body["errors"], lang)
        return body


class BadRequest(ApiError):
    status, code, title = 400, "bad_request", "Bad request"


class Unauthorized(ApiError):
    status, code, title = 401, "unauthorized", "Unauthorized"


class RateLimited(ApiError):
    """The caller spent their request budget for this minute (§25): retry after Retry-After."""

    status, code, title = 429, "rate_limited", "Too many requests"


class Forbidden(ApiError):
    """A member of the ledger whose role does not allow this (a non-member gets NotFound)."""

    status, code, title = 403, "forbidden", "Forbidden"


class TokenScope(Forbidden):
    """A personal access token asked for what its scope does not allow (a `read` token writing), or
    for what only a signed-in person may do (managing tokens)."""

    status, code, title = 403, "token_scope", "Token scope"


class NotFound(ApiError):
    status, code, title = 404, "not_found", "Not found"


class AlreadyExists(ApiError):
    status, code, title = 409, "already_exists", "Already exists"


class InsufficientFunds(ApiError):
    status, code, title = 409, "insufficient_funds", "Insufficient funds"


class BudgetExceeded(ApiError):
    status, code, title = 409, "budget_exceeded", "Budget exceeded"


class LastOwner(ApiError):
    """A ledger always keeps an owner: the last one can neither leave nor be demoted."""

    status, code, title = 409, "last_owner", "Last owner"


class SoleOwner(ApiError):
    """A person asks for their data to be deleted while they are the only owner of a shared ledger
    that others are members of: they hand it over or delete it first (`ledgers` names them)."""

    status, code, title = 409, "sole_owner", "Only owner of a shared ledger"


class Conflict(ApiError):
    """A write that met another one (or a busy ledger) and was not applied: the same request, sent
    again, may succeed (Retry-After says when). Never for a state the caller has to change first."""

    status, code, title = 409, "conflict", "Conflict"


class NotACard(ApiError):
    """A card's statements asked of an account that is not a credit card with billing."""

    status, code, title = 409, "not_a_card", "Not a card"


class UnitInUse(ApiError):
    """An account's unit asked to change once it has an opening balance or slips (their amounts are in it)."""

    status, code, title = 409, "unit_in_use", "Unit in use"


class PointsLapsed(ApiError):
    """A change would take back points whose lapse (ポイント失効) is already posted: the lapse slip is
    deleted or changed first."""

    status, code, title = 409, "points_lapsed", "Points lapsed"


class LimitReached(ApiError):
    """The ledger already holds as many of these (accounts, recurrences, webhooks) as it may."""

    status, code, title = 409, "limit_reached", "Limit reached"


class PersonalLedger(ApiError):
    """What only a shared ledger has (a name, members, invitations), asked of the personal one."""

    status, code, title = 409, "personal_ledger", "Personal ledger"


class NotResumable(ApiError):
    """A webhook that is not failing (active, or disabled for good) has nothing to resume."""

    status, code, title = 409, "not_resumable", "Not resumable"


class AlreadyUndone(ApiError):
    """A journal entry is undone once: its undo is an entry of its own, which can be undone in turn."""

    status, code, title = 409, "already_undone", "Already undone"


class NotUndoable(ApiError):
    """An entry whose inverse the API does not apply (memberships, invitations, the ledger itself)."""

    status, code, title = 409, "not_undoable", "Not undoable"


class Reconciled(ApiError):
    """A change of what a reconciliation summed (a reconciled slip's amount, date, account, or its
    deletion) without `?unlock=true`: `reconciliation` names the assertion it would break."""

    status, code, title = 409, "reconciled", "Reconciled"


class ReconciliationDifference(ApiError):
    """The cleared balance as of the date is not what the statement says, and no adjustment was asked."""

    status, code, title = 409, "reconciliation_difference", "Reconciliation difference"


class ReadAgain(Conflict):
    """What a write read changed before it committed, and the caller named no version (no If-Match,
    or `*`): the write applies to whatever is current, so it reads again (services' `on_current`);
    409 if it keeps changing."""

    def __init__(self) -> None:
        super().__init__("it kept changing while this change was written; retry", retry_after=1)


class UnitChanged(ReadAgain):
    """An account's unit (or point value) was not what a slip was priced in when it committed: the
    service learns the unit and prices the slip again (a 409 conflict if it escapes)."""

    def __init__(self, account: str, unit: str, point_value: int) -> None:
        Conflict.__init__(self, f"the unit of account '{account}' changed; retry", retry_after=1)
        self.account, self.unit, self.point_value = account, unit, point_value


class NoLongerMember(NotFound):
    """The writer's member item is gone at commit (removed meanwhile): 404, as for any non-member."""


class RoleRevoked(Forbidden):
    """The writer's member item no longer holds a role that may write this (demoted meanwhile)."""


class RequestInProgress(ApiError):
    status, code, title = 409, "request_in_progress", "Request in progress"


class UploadInProgress(ApiError):
    """Another caller holds the live lease on a receipt's upload."""

    status, code, title = 409, "upload_in_progress", "Upload in progress"


class UploadMissing(ApiError):
    """`complete` before the receipt's bytes were uploaded."""

    status, code, title = 409, "upload_missing", "Upload missing"


class ChecksumMismatch(ApiError):
    """The uploaded bytes are not the ones declared (size or sha256)."""

    status, code, title = 422, "checksum_mismatch", "Checksum mismatch"


class ArchiveRefused(ApiError):
    """An archive that cannot be restored (not an archive, altered, cut short, of another kind):
    `reason` says what is wrong; nothing was created."""

    status, code, title = 422, "archive_refused", "Archive refused"


class StorageUnavailable(ApiError):
    """The receipts bucket did not answer in time: nothing was changed; retry."""

    status, code, title = 503, "storage_unavailable", "Storage unavailable"


class VersionMismatch(ApiError):
    status, code, title = 412, "version_mismatch", "Version mismatch"


class UndoRefused(VersionMismatch):
    """An undo refused because what its entry would take back moved on since (POST
    /changes/{seq}/undo): `entity` and `id` name it, `current` is its version now (None: deleted),
    `expected` the version the entry left it at; `reconciled_by`: a slip reconciled since, by that
    reconciliation; `adjustment_of`: the adjustment slip of that reconciliation (its undo) was
    changed since. Nothing was changed."""


class PayloadTooLarge(ApiError):
    status, code, title = 413, "payload_too_large", "Payload too large"


class UnsupportedMediaType(ApiError):
    status, code, title = 415, "unsupported_media_type", "Unsupported media type"


class ValidationFailed(ApiError):
    status, code, title = 422, "validation_error", "Validation error"


class WebhookUrlRefused(ValidationFailed):
    """A URL a webhook may not call, with `reason`: invalid_url, not_https, not_public or unresolvable."""

    status, code, title = 422, "webhook_url_refused", "Webhook URL refused"


class AccountUnavailable(ValidationFailed):
    """An account a write names that does not exist or is archived. The store raises it; a service
    that knows which field named the account says so (services/slips.py)."""

    def __init__(self, account: str, problem: str) -> None:
        super().__init__(f"account '{account}' {problem}")
        self.account, self.reason = account, problem


class LinesSumMismatch(ValidationFailed):
    """A split slip whose lines do not add up to its amount."""

    status, code, title = 422, "lines_sum_mismatch", "Lines do not sum to the amount"


class IdempotencyKeyReused(ApiError):
    status, code, title = 422, "idempotency_key_reused", "Idempotency key reused"


class Gone(ApiError):
    """It existed and never will again (e.g. the slip an Idempotency-Key created was deleted)."""

    status, code, title = 410, "gone", "Gone"


class Locked(ApiError):
    """The ledger (or another named lock) is held by a lease; raise it with `retry_after`."""

    status, code, title = 423, "locked", "Locked"


class PreconditionRequired(ApiError):
    status, code, title = 428, "precondition_required", "Precondition required"
