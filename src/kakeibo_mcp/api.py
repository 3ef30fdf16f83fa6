"""The Kakeibo API as this server calls it: HTTP with a personal access token, JSON in and out, the
API's problems (application/problem+json) raised as ApiProblem, an API that cannot be reached as
Unreachable. The standard library only: each call is one connection, so an API that was down and is
back is simply called again."""

from __future__ import annotations

import json
import os
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

TIMEOUT = 30.0
LANGUAGES = ("ja", "en")
PERSONAL = "me"


class ConfigError(ValueError):
    """The environment does not say which API to call, or with what."""


class ApiProblem(Exception):
    """The API refused or failed a request: its problem's status, code, title and detail."""

    def __init__(self, status: int, body: Mapping[str, Any] | None, method: str, path: str) -> None:
        self.status, self.method, self.path = status, method, path
        self.body = dict(body or {})
        self.code = str(self.body.get("code") or "")
        self.title = str(self.body.get("title") or self.body.get("message") or f"HTTP {status}")
        self.detail = str(self.body.get("detail") or "")
        super().__init__(self.text)

    @property
    def text(self) -> str:
        head = f"{self.title}: {self.detail}" if self.detail and self.detail != self.title else self.title
        code = f"{self.code}, " if self.code else ""
        return f"{head} ({code}{self.status} from {self.method} {self.path})"


class Unreachable(Exception):
    """No answer from the API (refused, timed out, not HTTP)."""

    def __init__(self, base: str, reason: str) -> None:
        self.base, self.reason = base, reason
        super().__init__(f"{base}: {reason}")


@dataclass(frozen=True)
class Config:
    api: str
    token: str
    ledger: str | None = None
    lang: str = "ja"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        """KAKEIBO_API (the API's base URL), KAKEIBO_TOKEN (a kk_ personal access token), and optionally
        KAKEIBO_LEDGER (the ledger tools use unless told another; default your personal one) and
        KAKEIBO_LANG (ja or en: the language of the API's messages; default ja)."""
        source = os.environ if env is None else env
        api = source.get("KAKEIBO_API", "").strip().rstrip("/")
        token = source.get("KAKEIBO_TOKEN", "").strip()
        if not api.startswith(("http://", "https://")):
            raise ConfigError("KAKEIBO_API must be the API's base URL, e.g. http://127.0.0.1:3000")
        if not token:
            raise ConfigError("KAKEIBO_TOKEN must be a personal access token (POST /me/tokens: kk_...)")
        lang = source.get("KAKEIBO_LANG", "ja").strip().lower()[:2] or "ja"
        if lang not in LANGUAGES:
            raise ConfigError("KAKEIBO_LANG must be ja or en")
        ledger = source.get("KAKEIBO_LEDGER", "").strip() or None
        return cls(api, token, ledger, lang)


@dataclass
class Answer:
    status: int
    headers: Mapping[str, str]
    body: Any


@dataclass
class Api:
    config: Config
    _scope: str | None = field(default=None, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def path(self, path: str, ledger: str | None) -> str:
        """A ledger route's path for `ledger` (None: the configured one, else the personal ledger)."""
        chosen = ledger or self.config.ledger
        if not chosen or chosen == PERSONAL:
            return path
        return f"/ledgers/{urllib.parse.quote(chosen, safe='')}{path}"

    def call(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> Answer:
        """One request; ApiProblem for a 4xx/5xx answer, Unreachable when there is none."""
        kept = {k: v for k, v in (query or {}).items() if v is not None}
        url = self.config.api + path + ("?" + urllib.parse.urlencode(kept) if kept else "")
        sent = {
            "Authorization": f"Bearer {self.config.token}",
            "Accept": "application/json, application/problem+json",
            "Accept-Language": self.config.lang,
            "User-Agent": "kakeibo-mcp",
            **(headers or {}),
        }
        data = None
        if body is not None:
            data = json.dumps(body, ensure_ascii=False).encode("utf-8")
            sent["Content-Type"] = "application/json"
        request = urllib.request.Request(url, data=data, headers=sent, method=method)  # noqa: S310 - http(s) only
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:  # noqa: S310 - checked in Config
                return Answer(response.status, dict(response.headers.items()), _json(response.read()))
        except urllib.error.HTTPError as failed:
            with failed:
                parsed = _json(failed.read())
            raise ApiProblem(failed.code, parsed if isinstance(parsed, dict) else None, method, path) from None
        except (urllib.error.URLError, OSError, ValueError) as failed:
            reason = getattr(failed, "reason", None) or failed
            raise Unreachable(self.config.api, str(reason)) from None

    def get(self, path: str, **query: Any) -> Any:
        return self.call("GET", path, query=query).body

    def scope(self) -> str | None:
        """What the token may do (GET /me: read or write), asked once; None while it cannot be told
        (the API is down, or too old to say), asked again next time."""
        with self._lock:
            if self._scope is None:
                try:
                    found = self.get("/me").get("scope")
                except (ApiProblem, Unreachable, AttributeError):
                    return None
                self._scope = found if found in ("read", "write") else None
            return self._scope


def _json(data: bytes) -> Any:
    if not data:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return {"message": data[:200].decode("utf-8", "replace")}
