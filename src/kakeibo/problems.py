"""The problem+json bodies (RFC 9457) the API answers with, typed per code, for the OpenAPI document.

Each status a route declares lists the codes it can carry (http.py); a status with several codes is
a union told apart by `code`. The members are the ones errors.py raises with (the same in every
language). Only the OpenAPI document imports this module.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from kakeibo.models.base import Model

RETRY_AFTER = "seconds to wait before retrying (also sent as the Retry-After header)"


class FieldError(Model):
    loc: list[str] = Field(description='where: ["body", "date"], ["query", "from"], ...')
    msg: str = Field(description="the validator's own message (English); `detail` words it for people")
    type: str | None = Field(
        default=None,
        description="the kind of mistake: missing, int_type, ...; union_mismatch: the value is none of the forms the "
        "field takes (msg says which)",
    )
    ctx: dict[str, int | str] | None = Field(default=None, description="the limit that was passed, if any")


class ProblemBase(Model):
    type: str = Field(examples=["https://kakeibo.dev/problems/validation-error"])
    title: str = Field(description="short, in the language asked for (Accept-Language: ja or en)")
    status: int
    detail: str = Field(description="what went wrong and what to do, for people, in the language asked for")


class BadRequestProblem(ProblemBase):
    code: Literal["bad_request"]
    errors: list[FieldError] | None = Field(default=None, description="the query parameters that are wrong")
    header: str | None = Field(default=None, description="the request header that is wrong")
    key: str | None = Field(default=None, description="the key the JSON body names more than once")


class UnauthorizedProblem(ProblemBase):
    code: Literal["unauthorized"]


class ForbiddenProblem(ProblemBase):
    code: Literal["forbidden"]
    role: str | None = Field(default=None, description="the caller's role in the ledger")


class TokenScopeProblem(ProblemBase):
    """A `read` token writing, or a token managing tokens: make a write token, or sign in."""

    code: Literal["token_scope"]


class NotFoundProblem(ProblemBase):
    code: Literal["not_found"]


class AlreadyExistsProblem(ProblemBase):
    code: Literal["already_exists"]
    id: str | None = None


class InsufficientFundsProblem(ProblemBase):
    code: Literal["insufficient_funds"]
    account: str
    account_name: str = Field(description="the account's display name")
    balance: int
    needed: int


class BudgetExceededProblem(ProblemBase):
    code: Literal["budget_exceeded"]
    month: str
    category: str
    limit: int
    spent: int
    available: int | None = Field(
        default=None, description="the month's limit plus what is carried into it (繰越), when it carries"
    )
    remaining: int = Field(description="what the month has left of what it makes available")
    needed: int


class LastOwnerProblem(ProblemBase):
    code: Literal["last_owner"]


class ConflictProblem(ProblemBase):
    """A write that met another one: the same request, sent again, may succeed."""

    code: Literal["conflict"]
    retry_after: int | None = Field(default=None, description=RETRY_AFTER)
    reasons: list[str] | None = None


class NotACardProblem(ProblemBase):
    """Statements of an account that is not a credit card with billing: not worth retrying."""

    code: Literal["not_a_card"]


class LimitReachedProblem(ProblemBase):
    """The ledger holds as many accounts, recurrences or webhooks as it may: not worth retrying."""

    code: Literal["limit_reached"]
    limit: int = Field(description="how many the ledger may hold")


class PersonalLedgerProblem(ProblemBase):
    """A name, members or invitations asked of the personal ledger: not worth retrying."""

    code: Literal["personal_ledger"]


class NotResumableProblem(ProblemBase):
    """A webhook that is not failing (active, or disabled for good): nothing to resume."""

    code: Literal["not_resumable"]


class RequestInProgressProblem(ProblemBase):
    code: Literal["request_in_progress"]
    retry_after: int = Field(description=RETRY_AFTER)


class UploadInProgressProblem(ProblemBase):
    code: Literal["upload_in_progress"]
    retry_after: int = Field(description=RETRY_AFTER + ": when the other caller's lease on the upload ends")


class UploadMissingProblem(ProblemBase):
    code: Literal["upload_missing"]


class ChecksumMismatchProblem(ProblemBase):
    code: Literal["checksum_mismatch"]
    size: int | None = Field(default=None, description="the size of what was uploaded, in bytes")


class StorageUnavailableProblem(ProblemBase):
    code: Literal["storage_unavailable"]
    retry_after: int = Field(description=RETRY_AFTER)
    storage_code: str | None = Field(
        default=None, description="when the storage refused the request: its error code (AccessDenied, ...)"
    )


class GoneProblem(ProblemBase):
    code: Literal["gone"]
    id: str | None = Field(default=None, description="the slip that was deleted")


class VersionMismatchProblem(ProblemBase):
    code: Literal["version_mismatch"]
    current: int | None = Field(default=None, description="the version it is at now (its ETag)")
    expected: int | None = Field(
        default=None, description="the version If-Match named (an undo: the version the entry left it at)"
    )
    entity: str | None = Field(
        default=None,
        description="an undo refused: what moved on since the entry (slip, account, budget, recurrence, "
        "reconciliation); nothing was changed",
    )
    id: str | None = Field(default=None, description="an undo refused: the id of what moved on")
    reconciled_by: str | None = Field(
        default=None, description="an undo refused: the slip was reconciled since, by this reconciliation"
    )
    adjustment_of: str | None = Field(
        default=None,
        description="the undo of this reconciliation refused: its adjustment slip (`id`) was changed since",
    )


class PayloadTooLargeProblem(ProblemBase):
    code: Literal["payload_too_large"]
    limit: int = Field(description="the largest body accepted, in bytes")


class UnsupportedMediaTypeProblem(ProblemBase):
    code: Literal["unsupported_media_type"]
    accepted: list[str] | None = None


class ValidationProblem(ProblemBase):
    code: Literal["validation_error"]
    errors: list[FieldError] | None = None


class IdempotencyKeyReusedProblem(ProblemBase):
    code: Literal["idempotency_key_reused"]


class LinesSumMismatchProblem(ProblemBase):
    code: Literal["lines_sum_mismatch"]
    errors: list[FieldError] | None = None


class AlreadyUndoneProblem(ProblemBase):
    code: Literal["already_undone"]
    undone_by: int | None = Field(default=None, description="the seq of the entry that undid it")


class NotUndoableProblem(ProblemBase):
    code: Literal["not_undoable"]


class ReconciledProblem(ProblemBase):
    """A reconciled slip's amount, date or account changed (or it deleted) without ?unlock=true."""

    code: Literal["reconciled"]
    reconciliation: str | None = Field(default=None, description="the reconciliation that summed it")
    account: str | None = Field(default=None, description="the account it reconciled")


class ReconciliationDifferenceProblem(ProblemBase):
    """The cleared balance as of the date is not the statement's; nothing was written."""

    code: Literal["reconciliation_difference"]
    difference: int = Field(description="the statement's balance less the cleared balance")
    cleared_balance: int = Field(description="the account's cleared balance as of the date")
    date: str | None = Field(default=None, description="the statement's date")
    balance: int | None = Field(default=None, description="the statement's balance")
    unit: str | None = Field(
        default=None, description="the account's unit, which the amounts are in (JPY, an ISO 4217 code, points)"
    )


class RateLimitedProblem(ProblemBase):
    """Over a request budget: the person's per minute, or a token's (lower, within it)."""

    code: Literal["rate_limited"]
    retry_after: int = Field(description=RETRY_AFTER + ": when the budget's window ends")
    budget: Literal["person", "token"] = Field(description="the budget that was spent: the person's, or the token's")
    limit: int = Field(description="requests the budget allows per minute")


class LockedProblem(ProblemBase):
    code: Literal["locked"]
    retry_after: int = Field(description=RETRY_AFTER)


class PreconditionRequiredProblem(ProblemBase):
    code: Literal["precondition_required"]
    current: int | None = Field(default=None, description="the version to name in If-Match, when known")
    header: str | None = None


# code -> its body; the OpenAPI document takes them from here (http.py names them per status)
BY_CODE: dict[str, type[ProblemBase]] = {
    model.model_fields["code"].annotation.__args__[0]: model  # type: ignore[union-attr]
    for model in (
        BadRequestProblem,
        UnauthorizedProblem,
        ForbiddenProblem,
        TokenScopeProblem,
        NotFoundProblem,
        AlreadyExistsProblem,
        InsufficientFundsProblem,
        BudgetExceededProblem,
        LastOwnerProblem,
        ConflictProblem,
        NotACardProblem,
        LimitReachedProblem,
        PersonalLedgerProblem,
        NotResumableProblem,
        RequestInProgressProblem,
        UploadInProgressProblem,
        UploadMissingProblem,
        ChecksumMismatchProblem,
        StorageUnavailableProblem,
        GoneProblem,
        VersionMismatchProblem,
        PayloadTooLargeProblem,
        UnsupportedMediaTypeProblem,
        ValidationProblem,
        IdempotencyKeyReusedProblem,
        LinesSumMismatchProblem,
        AlreadyUndoneProblem,
        NotUndoableProblem,
        ReconciledProblem,
        ReconciliationDifferenceProblem,
        LockedProblem,
        PreconditionRequiredProblem,
        RateLimitedProblem,
    )
}
