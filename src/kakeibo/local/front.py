"""An HTTP front that behaves like the API Gateway HTTP API of template.yaml.

Only the routes the template declares are served (anything else: 404, as API Gateway does). Each
request to a protected route is authorized as API Gateway runs template.yaml's Lambda authorizer
(`LedgerAuthorizer`, the `AuthorizerFunction`: kakeibo.auth.authorizer): a request without an
`Authorization` header gets API Gateway's 401 before anything runs; otherwise the authorizer
function is invoked with the payload-2.0 authorizer event (on its own instances, from its source
or built directory, as the ledger's function is), its simple response cached for that header value
for the template's `AuthorizerResultTtlInSeconds`, and its context handed to the function in
`requestContext.authorizer.lambda` (`isAuthorized: false`: API Gateway's 403). Locally only,
`Authorization: Bearer <name>` (a name: neither a JWT nor a personal token) is also let through as
the caller `<name>` (for curl and the README), unless `names` is off (make run with
LOCAL_AUTH=strict). The function itself runs wherever `Function` says: on a pool of instance
processes for `make run` and the API tests (kakeibo.local.instances), or in this process
(`InProcess`). A function that fails or dies without answering gets 502; an authorizer that does,
API Gateway's 500.

The server keeps a listen backlog of 128, so a burst of clients waits instead of being reset, and
a client that hangs up before its answer is one log line.
"""

from __future__ import annotations

import base64
import json
import mimetypes
import os
import sys
import threading
import time
import uuid
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qsl, unquote, urlsplit

from kakeibo.auth.jwt import looks_like_jwt, token_from
from kakeibo.core.tokens import looks_like_token
from kakeibo.event import DEFAULT_ROUTE
from kakeibo.local import task, template
from kakeibo.local.events import authorizer_event, http_event

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]
LambdaContext = task.LambdaContext  # the context an instance hands the handler (tests and the bench too)
MAX_PAYLOAD = 10 * 1024 * 1024  # API Gateway's own limit
BACKLOG = 128  # pending connections the listening socket holds (Python's default is 5)
WEB_TYPES = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".webmanifest": "application/manifest+json",  # the installable page's manifest
}
TEXT_TYPES = ("application/javascript", "application/json", "application/manifest+json")  # sent with their charset


class FunctionFailed(Exception):
    """The function gave no answer to send: it raised, or its instance died (-> 502)."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class Function(Protocol):
    def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
        """The function's result for one payload-2.0 event; `FunctionFailed` when there is none."""
        ...


_INSTANCES: dict[int, threading.RLock] = {}
_INSTANCES_GUARD = threading.Lock()


class InProcess:
    """The handler called in this process, one request at a time across every front that calls it:
    its module is one Lambda instance (the resolver holds the request it is answering), and Lambda
    never gives an instance two events at once. A call made from inside the handler, on its own
    thread (a test's request meeting another while it runs), goes through. No isolation."""

    def __init__(self, handler: Handler, *, timeout: float = task.DEFAULT_TIMEOUT) -> None:
        self.handler = handler
        self.timeout = timeout  # what the context says the function's time is (its deadline, §31)
        with _INSTANCES_GUARD:
            self._lock = _INSTANCES.setdefault(id(handler), threading.RLock())

    def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            context = LambdaContext(aws_request_id=event["requestContext"]["requestId"], timeout=self.timeout)
            return self.handler(event, context)


def _problem(status: int, detail: str, code: str) -> tuple[int, dict[str, str], bytes]:
    body = {
        "type": f"https://kakeibo.dev/problems/{code.replace('_', '-')}",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code,
    }
    return status, {"Content-Type": "application/problem+json"}, json.dumps(body).encode()


def _query(raw: str) -> dict[str, str]:
    """The query's parameters as API Gateway hands them over: decoded as UTF-8 (UnicodeDecodeError
    when a percent-encoded byte is not), repeated names joined with commas."""
    query: dict[str, str] = {}
    for key, value in parse_qsl(raw, keep_blank_values=True, errors="strict"):
        query[key] = f"{query[key]},{value}" if key in query else value
    return query


def strict_auth(environ: dict[str, str] | os._Environ[str] | None = None) -> bool:
    """`LOCAL_AUTH=strict`: only the user pool's tokens (no `Bearer <name>`). Unset or empty: both."""
    value = (environ if environ is not None else os.environ).get("LOCAL_AUTH", "").strip()
    if value not in ("", "strict"):
        raise ValueError(f"LOCAL_AUTH must be strict or unset, not {value!r}")
    return value == "strict"


UNAUTHORIZED = b'{"message":"Unauthorized"}'
FORBIDDEN = b'{"message":"Forbidden"}'
AUTHORIZER_FAILED = b'{"message":"Internal Server Error"}'
CACHED_ANSWERS = 10_000  # answers the authorizer cache holds before it forgets the expired ones


class Front:
    def __init__(
        self,
        function: Function,
        *,
        web_root: Path | None = None,
        authorizer: Function | None = None,
        names: bool = True,
        clock: Callable[[], float] = time.monotonic,
        page_config: dict[str, str] | None = None,
    ) -> None:
        self.function = function
        # the page's /config.json, as `make deploy` publishes it beside the page: where the API and the
        # user pool are (here: the API at the page's own origin, the pool on the local server)
        self.page_config = page_config
        self.authorizer = authorizer  # the Lambda authorizer's function (None: nobody but names gets in)
        self.names = names  # `Bearer <name>` accepted as the caller <name>
        self.cache_seconds = template.authorizer_ttl()
        self._clock = clock
        self._answers: dict[str, tuple[float, dict[str, Any] | None]] = {}  # header -> (until, context)
        self._answers_lock = threading.Lock()
        # API Gateway picks the most specific route: literal segments win over variables
        # (`GET /slips/{id}/history` before `GET /slips/{date}/{id}`)
        self.routes = sorted(template.routes(), key=lambda r: -sum(1 for p in r.path.split("/") if p and "{" not in p))
        self.default = template.default_route()
        self.cors = template.cors()
        self.web_root = web_root

    def match(self, method: str, path: str) -> tuple[template.Route, dict[str, str]] | None:
        for route in self.routes:
            if route.method != method:
                continue
            found = route.pattern.match(path)
            if found:
                return route, {k: unquote(v) for k, v in found.groupdict().items()}
        return None

    def handle(
        self, method: str, target: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        split = urlsplit(target)
        path = split.path or "/"
        lowered = {k.lower(): v for k, v in headers.items()}
        cors = self._cors_headers(lowered.get("origin"))
        if method == "OPTIONS" and "access-control-request-method" in lowered:
            return 204, cors, b""
        matched = self.match(method, path)
        if matched is None:
            static = self._static(method, path)
            if static is not None:
                return static
            if not self.default:  # API Gateway's own answer
                status, out, payload = 404, {"Content-Type": "application/json"}, b'{"message":"Not Found"}'
                return status, {**out, **cors}, payload
            # the $default route: the function answers what no route matches (no authorizer on it)
            matched = template.Route(method, path, public=True, route_key=DEFAULT_ROUTE), {}
        route, params = matched
        try:
            _query(split.query)
        except UnicodeDecodeError:
            status, out, payload = _problem(400, "the query string is not UTF-8", "bad_request")
            return status, {**out, **cors}, payload
        if len(body) > MAX_PAYLOAD:
            return _problem(413, "the request body is over API Gateway's 10 MB limit", "payload_too_large")
        context = None
        if not route.public:  # API Gateway runs the authorizer of the routes that have one only
            header = lowered.get("authorization")
            if not (header or "").strip():  # no identity source: API Gateway's 401, no authorizer call
                return 401, {"Content-Type": "application/json", **cors}, UNAUTHORIZED
            request = self.event(route, params=params, target=target, headers=lowered, body=b"", context=None)
            try:
                context = self.authorize(header or "", request)
            except FunctionFailed:
                return 500, {"Content-Type": "application/json", **cors}, AUTHORIZER_FAILED
            if context is None:
                return 403, {"Content-Type": "application/json", **cors}, FORBIDDEN
        event = self.event(route, params=params, target=target, headers=lowered, body=body, context=context)
        try:
            result = self.function.invoke(event)
        except FunctionFailed as exc:
            status, out, payload = _problem(502, f"no answer from the function: {exc.detail}", "bad_gateway")
            return status, {**out, **cors}, payload
        return self._response(result, cors)

    def authorize(self, header: str, request: dict[str, Any]) -> dict[str, Any] | None:
        """The authorizer's context for this `Authorization` header (None: not authorized), from the
        cache while its answer is fresh, as API Gateway caches by identity source."""
        name = self.local_name(header)
        if name is not None:
            return {"sub": name, "via": "jwt", "scope": "write", "token_id": ""}
        now = self._clock()
        with self._answers_lock:
            cached = self._answers.get(header)
            if cached is not None and cached[0] > now:
                return cached[1]
        if self.authorizer is None:
            return None
        answer = self.authorizer.invoke(authorizer_event(request, header))
        context = dict(answer.get("context") or {}) if answer.get("isAuthorized") is True else None
        if self.cache_seconds > 0:
            with self._answers_lock:
                if len(self._answers) >= CACHED_ANSWERS:
                    self._answers = {k: v for k, v in self._answers.items() if v[0] > now}
                self._answers[header] = (now + self.cache_seconds, context)
        return context

    def local_name(self, header: str) -> str | None:
        """The local shortcut's caller: `Bearer <name>`, a name that is neither a JWT nor a personal token."""
        credential = token_from(header)
        if not self.names or credential is None or header.strip()[:7].lower() != "bearer ":
            return None
        if looks_like_jwt(credential) or looks_like_token(credential):
            return None
        return credential

    @staticmethod
    def event(
        route: template.Route,
        *,
        params: dict[str, str],
        target: str,
        headers: dict[str, str],
        body: bytes,
        context: dict[str, Any] | None,
    ) -> dict[str, Any]:
        """The payload-2.0 event API Gateway would send for this request to a matched route."""
        split = urlsplit(target)
        query = _query(split.query)
        event = http_event(
            route,
            path=unquote(split.path or "/"),  # API Gateway's HTTP API hands the function the path decoded
            path_parameters=params,
            query=query,
            headers={k.lower(): v for k, v in headers.items()},
            body=body,
            authorizer=context,
        )
        event["rawQueryString"] = split.query
        return event

    def _response(self, result: dict[str, Any], cors: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        headers = {str(k): str(v) for k, v in (result.get("headers") or {}).items()}
        raw = result.get("body") or ""
        payload = base64.b64decode(raw) if result.get("isBase64Encoded") else raw.encode("utf-8")
        return int(result.get("statusCode", 200)), {**headers, **cors}, payload

    def _cors_headers(self, origin: str | None) -> dict[str, str]:
        allowed = self.cors.get("AllowOrigins") or []
        if not origin or (origin not in allowed and "*" not in allowed):
            return {}
        return {
            "Access-Control-Allow-Origin": origin,
            "Access-Control-Allow-Headers": ",".join(self.cors.get("AllowHeaders", [])),
            "Access-Control-Allow-Methods": ",".join(self.cors.get("AllowMethods", [])),
            "Access-Control-Expose-Headers": ",".join(self.cors.get("ExposeHeaders", [])),
            "Access-Control-Max-Age": str(self.cors.get("MaxAge", 0)),
            "Vary": "Origin",
        }

    def _static(self, method: str, path: str) -> tuple[int, dict[str, str], bytes] | None:
        """The web app (web/), if there is one, at paths the API does not declare; its /config.json."""
        if self.web_root is None or method not in ("GET", "HEAD"):
            return None
        if path == "/config.json" and self.page_config is not None:
            # and, locally only, whether the page may speak as a user name (`Bearer <name>`) when
            # nobody is signed in: not with LOCAL_AUTH=strict, never on AWS (deploy's has no such key)
            payload = json.dumps({**self.page_config, "local_names": self.names}).encode()
            return 200, {"Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-cache"}, payload
        relative = "index.html" if path in ("", "/") else path.lstrip("/")
        root = self.web_root.resolve()
        target = (root / unquote(relative)).resolve()
        if not target.is_relative_to(root) or not target.is_file():
            return None
        # The page's own types first: a system's MIME table may call .js text/plain (browsers then
        # refuse to run it as a module); anything else as the table says.
        kind = WEB_TYPES.get(target.suffix.lower()) or mimetypes.guess_type(target.name)[0]
        kind = kind or "application/octet-stream"
        if kind.startswith("text/") or kind in TEXT_TYPES:
            kind += "; charset=utf-8"
        return 200, {"Content-Type": kind, "Cache-Control": "no-cache"}, target.read_bytes()


class Server(ThreadingHTTPServer):
    request_queue_size = BACKLOG
    daemon_threads = True
    quiet = False  # no access log (tests); hang-ups and errors are still logged

    def handle_error(self, request: Any, client_address: Any) -> None:
        failure = sys.exc_info()[1]
        if isinstance(failure, ConnectionError):  # the client went away while we read its request
            host = client_address[0] if isinstance(client_address, tuple) else client_address
            sys.stderr.write(f"client {host} hung up: {failure.__class__.__name__}\n")
            return
        super().handle_error(request, client_address)


def _utf8(target: str) -> str | None:
    """The request target as the client sent it: http.server reads the request line as Latin-1, so
    raw UTF-8 (curl "$API/slips?category=日用品") arrives as one character per byte. None when
    those bytes are not UTF-8."""
    try:
        return target.encode("iso-8859-1").decode("utf-8")
    except UnicodeError:
        return None


def serve(front: Front, host: str, port: int) -> Server:
    class RequestHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "kakeibo-local"
        # The head and the body go out in two writes: with Nagle's algorithm the body would wait
        # for the client's delayed ACK of the head (~40 ms a response on Linux).
        disable_nagle_algorithm = True

        def _dispatch(self) -> None:
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = -1
            if length < 0:
                status, headers, payload = _problem(400, "Content-Length is not a number of bytes", "bad_request")
                self.close_connection = True
            elif length > MAX_PAYLOAD:
                status, headers, payload = _problem(413, "request body too large", "payload_too_large")
                self.close_connection = True
            elif (target := _utf8(self.path)) is None:
                status, headers, payload = _problem(400, "the path or query string is not UTF-8", "bad_request")
                self.close_connection = True  # its body, if any, is left unread
            else:
                body = self.rfile.read(length) if length else b""
                if len(body) < length:
                    self._hung_up("while sending its request")
                    return
                try:
                    status, headers, payload = front.handle(self.command, target, dict(self.headers.items()), body)
                except Exception:  # the front itself must never take the server down
                    self.log_error("front error for %s %s", self.command, self.path)
                    status, headers, payload = _problem(502, "local front error", "bad_gateway")
            try:
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(payload)))
                self.send_header("apigw-requestid", str(uuid.uuid4()))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(payload)
                self.wfile.flush()
            except ConnectionError as exc:
                self._hung_up(f"before its {status} answer was sent ({exc.__class__.__name__})")

        def _hung_up(self, when: str) -> None:
            self.close_connection = True
            sys.stderr.write(f"client {self.client_address[0]} hung up {when}: {self.command} {self.path}\n")

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = _dispatch

        def __getattr__(self, name: str) -> Any:
            # any other method (TRACE, PROPFIND...) is routed too: undeclared -> 404, as API Gateway does
            if name.startswith("do_"):
                return self._dispatch
            raise AttributeError(name)

        def log_message(self, format: str, *args: Any) -> None:
            if getattr(self.server, "quiet", False):
                return
            super().log_message(format, *args)

    return Server((host, port), RequestHandler)
