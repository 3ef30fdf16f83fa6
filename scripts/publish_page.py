"""`make deploy`'s last step: the page (web/) published to the stack's page bucket, behind its
CloudFront distribution (template.yaml's PageBucket, PageDistribution).

What is published: every file of the page (its HTML, scripts, styles, manifest and icons: not
web/README.md nor web/package.json, which tell people and Node about the folder), and a config.json
made from the stack's outputs (the API's URL, the region, the user pool and its app client). Each
object carries its Content-Type and Cache-Control: index.html, sw.js and config.json are `no-cache`
(asked again on every load); the other files too are revalidated by browsers on every load
(`max-age=0`: the page's modules, named without a hash, always come from one publication), while
CloudFront keeps them a few minutes (`s-maxage`) and is told when they change.

The service worker's cache is named for what was published (`const CACHE = 'kakeibo-page-<version>'`,
the version a digest of the page's files): a publication that changes any file changes sw.js, so
every installed page fetches its new files on its next start and drops the old cache.

Only what changed is written: an object whose body, type and cache policy are the ones already
there is left alone; what is no longer in web/ is deleted; CloudFront is asked to invalidate the
paths written or deleted, and nothing when nothing changed.

    .venv/bin/python scripts/publish_page.py --stack kakeibo-api [--region ap-northeast-1]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
import tomllib
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "web"
# The page's files by their ending, with the types they are served with (the local front's too:
# kakeibo.local.front.WEB_TYPES)
PAGE_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".webmanifest": "application/manifest+json; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}
NOT_PAGE = frozenset({"README.md", "package.json"})  # in web/ for people and for Node, not for browsers
CONFIG = "config.json"
WORKER = "sw.js"
CONFIG_TYPE = "application/json; charset=utf-8"
# Asked again on every load: what says which files make the page, and where the API is
FRESH = frozenset({"index.html", WORKER, CONFIG})
NO_CACHE = "no-cache"
# Revalidated by browsers on every load, kept by CloudFront for 5 minutes (invalidated when changed:
# a failed invalidation heals within them)
REVALIDATED = "public, max-age=0, must-revalidate, s-maxage=300"
CACHE_NAME = re.compile(r"const CACHE = 'kakeibo-page-[^']*';")
DIGEST = "digest"  # the object's metadata: sha256 of its body, type and cache policy
MAX_PATHS = 1000  # more changed paths than this: one wildcard invalidation instead


class PublishFailed(Exception):
    pass


@dataclass(frozen=True)
class PageObject:
    key: str
    body: bytes
    content_type: str
    cache_control: str

    @property
    def digest(self) -> str:
        head = f"{self.content_type}\n{self.cache_control}\n".encode()
        return hashlib.sha256(head + self.body).hexdigest()


@dataclass
class Published:
    version: str
    uploaded: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    invalidated: list[str] = field(default_factory=list)  # CloudFront paths


def page_files(web: Path = WEB) -> dict[str, bytes]:
    """The page's files under `web`, by their key (their path from `web`, with /)."""
    files: dict[str, bytes] = {}
    for path in sorted(web.rglob("*")):
        if not path.is_file() or path.name in NOT_PAGE or path.name == CONFIG:
            continue
        relative = path.relative_to(web)
        if any(part.startswith(".") for part in relative.parts):
            continue
        if path.suffix not in PAGE_TYPES:
            raise PublishFailed(f"web/{relative.as_posix()}: not a kind of file the page is published with")
        files[relative.as_posix()] = path.read_bytes()
    if "index.html" not in files or WORKER not in files:
        raise PublishFailed(f"{web}: no index.html or {WORKER}")
    return files


def version(files: dict[str, bytes]) -> str:
    """The page's version: a digest of its files' names and bodies."""
    digest = hashlib.sha256()
    for key in sorted(files):
        digest.update(f"{key}\0{hashlib.sha256(files[key]).hexdigest()}\n".encode())
    return digest.hexdigest()[:16]


def with_version(worker: bytes, page_version: str) -> bytes:
    """sw.js with its cache named for the page's version."""
    text, count = CACHE_NAME.subn(f"const CACHE = 'kakeibo-page-{page_version}';", worker.decode("utf-8"))
    if count != 1:
        raise PublishFailed(f"{WORKER}: no `const CACHE = 'kakeibo-page-...';` line to write the version in")
    return text.encode("utf-8")


def objects(files: dict[str, bytes], config: dict[str, str]) -> tuple[str, list[PageObject]]:
    """The page's version and every object it is published as (the config.json among them)."""
    page_version = version(files)
    found = []
    for key, body in files.items():
        suffix = "." + key.rsplit(".", 1)[-1]
        written = with_version(body, page_version) if key == WORKER else body
        found.append(PageObject(key, written, PAGE_TYPES[suffix], NO_CACHE if key in FRESH else REVALIDATED))
    found.append(PageObject(CONFIG, (json.dumps(config, indent=2) + "\n").encode(), CONFIG_TYPE, NO_CACHE))
    return page_version, found


def _order(item: PageObject) -> tuple[int, str]:
    """The files first, then config.json, index.html and last sw.js: a page that starts while the
    publication runs finds the new worker only once every file it keeps is there."""
    last = {CONFIG: 1, "index.html": 2, WORKER: 3}
    return last.get(item.key, 0), item.key


def publish(
    s3: Any,
    cloudfront: Any,
    *,
    bucket: str,
    distribution: str,
    config: dict[str, str],
    web: Path = WEB,
) -> Published:
    """Write what changed into `bucket`, delete what web/ no longer has, invalidate those paths."""
    page_version, wanted = objects(page_files(web), config)
    result = Published(page_version)
    existing = set()
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        existing |= {item["Key"] for item in page.get("Contents", [])}
    for item in sorted(wanted, key=_order):
        if item.key in existing:
            head = s3.head_object(Bucket=bucket, Key=item.key)
            if (head.get("Metadata") or {}).get(DIGEST) == item.digest:
                result.unchanged.append(item.key)
                continue
        s3.put_object(
            Bucket=bucket,
            Key=item.key,
            Body=item.body,
            ContentType=item.content_type,
            CacheControl=item.cache_control,
            Metadata={DIGEST: item.digest},
        )
        result.uploaded.append(item.key)
    gone = sorted(existing - {item.key for item in wanted})
    for start in range(0, len(gone), 1000):
        batch = gone[start : start + 1000]
        answer = s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": key} for key in batch], "Quiet": True})
        if answer.get("Errors"):
            raise PublishFailed(f"not deleted from {bucket}: {answer['Errors']}")
    result.deleted = gone
    result.invalidated = paths(result.uploaded + result.deleted)
    if result.invalidated:
        cloudfront.create_invalidation(
            DistributionId=distribution,
            InvalidationBatch={
                "Paths": {"Quantity": len(result.invalidated), "Items": result.invalidated},
                "CallerReference": f"page-{page_version}-{time.time_ns()}",
            },
        )
    return result


def paths(keys: list[str]) -> list[str]:
    """The CloudFront paths of changed keys (index.html is also the root, the default root object)."""
    found = {"/" + urllib.parse.quote(key) for key in keys}
    if "index.html" in keys:
        found.add("/")
    return sorted(found) if len(found) <= MAX_PATHS else ["/*"]


def stack_outputs(cloudformation: Any, stack: str) -> dict[str, str]:
    (described,) = cloudformation.describe_stacks(StackName=stack)["Stacks"]
    return {output["OutputKey"]: output["OutputValue"] for output in described.get("Outputs", [])}


def page_config(outputs: dict[str, str], region: str) -> dict[str, str]:
    """config.json: where the page's API and user pool are (the Identity Provider API: the region's)."""
    try:
        return {
            "api": outputs["ApiUrl"],
            "region": region,
            "user_pool_id": outputs["UserPoolId"],
            "client_id": outputs["UserPoolClientId"],
            "cognito_endpoint": "",
        }
    except KeyError as missing:
        raise PublishFailed(f"the stack has no output {missing}: deploy template.yaml first") from None


def deploy_region(samconfig: Path = ROOT / "samconfig.toml") -> str | None:
    """The region sam deploy deploys to (samconfig.toml's, which --guided keeps), if it names one."""
    if not samconfig.exists():
        return None
    with samconfig.open("rb") as fh:
        config = tomllib.load(fh)
    region = config.get("default", {}).get("deploy", {}).get("parameters", {}).get("region")
    return str(region) if region else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Publish web/ to the stack's page bucket")
    parser.add_argument("--stack", default="kakeibo-api")
    parser.add_argument("--region", default=None, help="default: samconfig.toml's, else the AWS CLI's")
    parser.add_argument("--web", type=Path, default=WEB)
    args = parser.parse_args(argv)
    import boto3  # noqa: PLC0415 - --help without it

    session = boto3.session.Session(region_name=args.region or deploy_region())
    region = session.region_name
    if not region:
        print("error: no region: pass --region", file=sys.stderr)
        return 2
    try:
        outputs = stack_outputs(session.client("cloudformation"), args.stack)
        if "PageBucketName" not in outputs or "PageDistributionId" not in outputs:
            raise PublishFailed(f"the stack {args.stack} has no page bucket: deploy template.yaml first")
        result = publish(
            session.client("s3"),
            session.client("cloudfront"),
            bucket=outputs["PageBucketName"],
            distribution=outputs["PageDistributionId"],
            config=page_config(outputs, region),
            web=args.web,
        )
    except PublishFailed as failure:
        print(f"error: {failure}", file=sys.stderr)
        return 1
    print(
        f"page {result.version}: {len(result.uploaded)} written, {len(result.deleted)} deleted, "
        f"{len(result.unchanged)} unchanged; invalidated: {' '.join(result.invalidated) or 'nothing'}"
    )
    print(f"PageUrl: {outputs.get('PageUrl', '')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
