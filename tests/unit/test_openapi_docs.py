"""/openapi.json and /swagger: the API's description, built only when asked for."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.events import Client


def test_swagger_serves_the_spec_the_ui_and_the_oauth2_redirect(api: Client) -> None:
    # Given the API's OpenAPI document
    spec = api.get("/openapi.json", user=None)
    assert spec.status == 200
    assert spec.json["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    # Then /swagger?format=json is the same document
    same = api.get("/swagger", query={"format": "json"}, user=None)
    assert same.status == 200 and same.json == spec.json
    # And /swagger is the Swagger UI page with the document inlined
    page = api.get("/swagger", user=None)
    assert page.status == 200 and page.header("Content-Type") == "text/html"
    assert b"SwaggerUIBundle" in page.raw and b'"title": "Kakeibo API"' in page.raw
    # And the OAuth2 redirect page is there for the UI's "Authorize" flow
    redirect = api.get("/swagger", query={"format": "oauth2-redirect"}, user=None)
    assert redirect.status == 200 and b"oauth2" in redirect.raw.lower()


def test_handler_import_leaves_docs_and_validators_for_later() -> None:
    # Given a fresh interpreter (a Lambda cold start)
    code = (
        "import json, sys; import kakeibo.handler; from kakeibo.models.slips import Slip, SlipIn; "
        "print(json.dumps(['aws_lambda_powertools.event_handler.openapi.models' in sys.modules, "
        "Slip.__pydantic_complete__, SlipIn.__pydantic_complete__]))"
    )
    # When it imports the handler
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    # Then the OpenAPI document models are not imported yet (they are a large share of the import)
    # And our models build their validators on first use (most only ever describe responses)
    assert json.loads(done.stdout) == [False, False, False]


def test_handler_import_leaves_the_importer_and_the_repair_code_for_later() -> None:
    # Given a fresh interpreter (a Lambda cold start)
    lazy = ["kakeibo.services.imports.importer", "kakeibo.services.imports.prepare", "kakeibo.services.integrity"]
    code = f"import json, sys; import kakeibo.handler; print(json.dumps([m in sys.modules for m in {lazy!r}]))"
    # When it imports the handler
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    # Then the CSV importer, its file formats and verify/rebuild are not loaded: only their routes need them
    assert json.loads(done.stdout) == [False, False, False]
