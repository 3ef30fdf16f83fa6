"""POST /changes/{seq}/undo: one journal entry undone (services/undo.py)."""

from __future__ import annotations

from aws_lambda_powertools.event_handler import Response

from kakeibo import errors
from kakeibo.http import json_response, ok_response, problem_responses
from kakeibo.models.journal import UndoResult
from kakeibo.routes.properties import RouteProperties
from kakeibo.routes.scope import EDITORS, LedgerRouter, ledger_scope
from kakeibo.services import undo as service
from kakeibo.store import get_store

router = LedgerRouter()
# what these routes are besides their code (routes/properties.py)
PROPERTIES = {
    "POST /changes/{seq}/undo": RouteProperties(no_body=True),
}
TAGS = ["journal"]


@router.post(
    "/changes/<seq>/undo",
    tags=TAGS,
    summary="Undo one journal entry (editors)",
    description="Applies the inverse of entry `seq` in one transaction, only if every entity it changed is "
    "still at the version it left (412 naming the entity otherwise; nothing changes). An import batch or a "
    "recurring post is undone whole; undoing a delete restores the slip with its own id. Twice: 409 "
    "already_undone. Changes to members, invitations and the ledger itself: 409 not_undoable.",
    operation_id="undoChange",
    responses={200: ok_response(UndoResult), **problem_responses(400, 401, 404, 409, 412, 413, 415, 422, 423)},
)
def undo_change(seq: str) -> Response[str]:
    writer = ledger_scope(router, EDITORS).writer
    if not (seq.isascii() and seq.isdigit() and len(seq) <= 12):
        raise errors.NotFound("change not found")
    return json_response(200, service.undo(get_store(), writer, int(seq)))
