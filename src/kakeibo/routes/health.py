"""/health: liveness, no authentication."""

from __future__ import annotations

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router

from kakeibo import __version__
from kakeibo.http import json_response, ok_response
from kakeibo.models.imports import Health
from kakeibo.routes.properties import RouteProperties
from kakeibo.settings import get_settings

router = Router()
# what these routes are besides their code (routes/properties.py)
PROPERTIES = {
    "GET /health": RouteProperties(public=True),
}


@router.get(
    "/health",
    tags=["meta"],
    summary="Liveness (no authentication)",
    operation_id="getHealth",
    responses={200: ok_response(Health)},
)
def health() -> Response[str]:
    return json_response(200, {"status": "ok", "version": __version__, "time_zone": get_settings().ledger_time_zone})
