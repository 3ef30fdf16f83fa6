"""`make deploy` publishes the page (scripts/publish_page.py) into the stack's page bucket and
invalidates in its CloudFront distribution what changed: here against the local server (moto's,
which speaks S3, CloudFront and CloudFormation over HTTP as AWS does)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from types import ModuleType
from typing import Any

import boto3
import pytest

from kakeibo.local.front import TEXT_TYPES, WEB_TYPES
from kakeibo.local.s3 import S3Local

ROOT = Path(__file__).resolve().parents[2]
OUTPUTS = {
    "ApiUrl": "https://a1b2c3d4e5.execute-api.ap-northeast-1.amazonaws.com",
    "UserPoolId": "ap-northeast-1_AbCdEfGhI",
    "UserPoolClientId": "1example23456789abcdefghij",
}


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("publish_page", ROOT / "scripts" / "publish_page.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


publish_page = _script()


def _client(service: str, server: S3Local) -> Any:
    return boto3.client(
        service, endpoint_url=server.endpoint, region_name="us-east-1", aws_access_key_id="local",
        aws_secret_access_key="local",
    )  # fmt: skip


@pytest.fixture
def web(tmp_path: Path) -> Path:
    """A copy of web/ the test may change."""
    copy = tmp_path / "web"
    shutil.copytree(ROOT / "web", copy)
    return copy


class Stack:
    """A page bucket and a distribution of the test's own on the local server."""

    def __init__(self, server: S3Local) -> None:
        self.s3 = _client("s3", server)
        self.cloudfront = _client("cloudfront", server)
        self.bucket = f"page-{uuid.uuid4().hex[:12]}"
        self.s3.create_bucket(Bucket=self.bucket)
        origin = {
            "Id": "page",
            "DomainName": f"{self.bucket}.s3.amazonaws.com",
            "S3OriginConfig": {"OriginAccessIdentity": ""},
        }
        self.distribution = self.cloudfront.create_distribution(
            DistributionConfig={
                "CallerReference": self.bucket,
                "Comment": "page",
                "Enabled": True,
                "DefaultRootObject": "index.html",
                "Origins": {"Quantity": 1, "Items": [origin]},
                "DefaultCacheBehavior": {"TargetOriginId": "page", "ViewerProtocolPolicy": "redirect-to-https",
                                         "CachePolicyId": "658327ea-f89d-4fab-a63d-7e88639e58f6"},
            }
        )["Distribution"]["Id"]  # fmt: skip

    def publish(self, web: Path, outputs: dict[str, str] = OUTPUTS) -> Any:
        return publish_page.publish(
            self.s3,
            self.cloudfront,
            bucket=self.bucket,
            distribution=self.distribution,
            config=publish_page.page_config(outputs, "ap-northeast-1"),
            web=web,
        )

    def keys(self) -> set[str]:
        return {item["Key"] for item in self.s3.list_objects_v2(Bucket=self.bucket).get("Contents", [])}

    def body(self, key: str) -> bytes:
        data: bytes = self.s3.get_object(Bucket=self.bucket, Key=key)["Body"].read()
        return data

    def invalidations(self) -> list[list[str]]:
        """The paths of each invalidation, oldest first."""
        listed = self.cloudfront.list_invalidations(DistributionId=self.distribution)["InvalidationList"]
        batches = [
            self.cloudfront.get_invalidation(DistributionId=self.distribution, Id=item["Id"])["Invalidation"]
            for item in listed.get("Items", [])
        ]
        batches.sort(key=lambda b: b["CreateTime"])
        return [sorted(b["InvalidationBatch"]["Paths"].get("Items", [])) for b in batches]


@pytest.fixture
def stack(s3_local: S3Local) -> Stack:
    return Stack(s3_local)


def _page_keys(web: Path) -> set[str]:
    kept = {"README.md", "package.json"}
    return {p.relative_to(web).as_posix() for p in web.rglob("*") if p.is_file() and p.name not in kept}


def _cache_name(worker: bytes) -> str:
    found = re.search(r"const CACHE = '([^']+)';", worker.decode())
    assert found is not None
    return found.group(1)


def test_a_first_publication_writes_every_file_of_the_page_and_a_config_json_of_the_stack(
    stack: Stack, web: Path
) -> None:
    # When the page is published into an empty bucket
    result = stack.publish(web)
    # Then the bucket holds every file of the page and config.json, nothing of web/'s README or package.json
    assert stack.keys() == _page_keys(web) | {"config.json"}
    assert set(result.uploaded) == stack.keys() and result.deleted == [] and result.unchanged == []
    # And config.json says where the stack's API and user pool are (the region's Identity Provider API)
    assert json.loads(stack.body("config.json")) == {
        "api": OUTPUTS["ApiUrl"],
        "region": "ap-northeast-1",
        "user_pool_id": OUTPUTS["UserPoolId"],
        "client_id": OUTPUTS["UserPoolClientId"],
        "cognito_endpoint": "",
    }
    written = stack.keys()
    # And each file has its type and cache policy: index.html, sw.js and config.json asked again on
    # every load, the rest revalidated by browsers and kept by CloudFront a few minutes
    for key in written:
        head = stack.s3.head_object(Bucket=stack.bucket, Key=key)
        fresh = key in {"index.html", "sw.js", "config.json"}
        expected = "no-cache" if fresh else "public, max-age=0, must-revalidate, s-maxage=300"
        assert head["CacheControl"] == expected, key
    assert stack.s3.head_object(Bucket=stack.bucket, Key="index.html")["ContentType"] == "text/html; charset=utf-8"
    assert stack.s3.head_object(Bucket=stack.bucket, Key="app.js")["ContentType"] == "text/javascript; charset=utf-8"
    assert stack.s3.head_object(Bucket=stack.bucket, Key="icon-192.png")["ContentType"] == "image/png"
    assert stack.s3.head_object(Bucket=stack.bucket, Key="manifest.webmanifest")["ContentType"].startswith(
        "application/manifest+json"
    )
    # And every file but the worker is as it is in web/; the worker's cache is named for this version
    for key in _page_keys(web) - {"sw.js"}:
        assert stack.body(key) == (web / key).read_bytes(), key
    worker = stack.body("sw.js")
    assert _cache_name(worker) == f"kakeibo-page-{result.version}" != _cache_name((web / "sw.js").read_bytes())
    assert re.sub(rb"kakeibo-page-\w+", b"", worker) == re.sub(rb"kakeibo-page-\w+", b"", (web / "sw.js").read_bytes())
    # And everything written was invalidated, the root (the default root object) with index.html
    assert stack.invalidations() == [sorted({f"/{key}" for key in written} | {"/"})]


def test_publishing_again_writes_nothing_and_invalidates_nothing(stack: Stack, web: Path) -> None:
    # Given a published page
    first = stack.publish(web)
    # When it is published again as it is
    again = stack.publish(web)
    # Then nothing is written, deleted or invalidated, and its version is the same
    assert (again.uploaded, again.deleted, again.invalidated) == ([], [], [])
    assert set(again.unchanged) == stack.keys() and again.version == first.version
    assert len(stack.invalidations()) == 1


def test_a_changed_file_is_written_and_invalidated_alone_with_the_worker_that_names_its_version(
    stack: Stack, web: Path
) -> None:
    # Given a published page
    first = stack.publish(web)
    old_worker = stack.body("sw.js")
    # When one of its files changes and the page is published again
    (web / "views" / "quick.js").write_text((web / "views" / "quick.js").read_text() + "\n// changed\n")
    result = stack.publish(web)
    # Then that file is written, and the worker, whose cache takes the new version's name
    assert sorted(result.uploaded) == ["sw.js", "views/quick.js"] and result.deleted == []
    assert stack.body("views/quick.js") == (web / "views" / "quick.js").read_bytes()
    assert result.version != first.version
    assert _cache_name(stack.body("sw.js")) == f"kakeibo-page-{result.version}" != _cache_name(old_worker)
    # And only they are invalidated
    assert stack.invalidations()[-1] == ["/sw.js", "/views/quick.js"]


def test_a_file_no_longer_in_web_is_deleted_and_invalidated(stack: Stack, web: Path) -> None:
    # Given a published page, and an object the bucket holds from an older publication
    stack.publish(web)
    stack.s3.put_object(Bucket=stack.bucket, Key="views/old.js", Body=b"export {};")
    # When a file of the page is removed and the page is published again
    (web / "views" / "tax.js").unlink()
    result = stack.publish(web)
    # Then it and the old object are deleted and invalidated (with the worker of the new version)
    assert result.deleted == ["views/old.js", "views/tax.js"] and result.uploaded == ["sw.js"]
    assert stack.keys() == _page_keys(web) | {"config.json"}
    assert stack.invalidations()[-1] == ["/sw.js", "/views/old.js", "/views/tax.js"]


def test_a_stack_with_new_ids_changes_config_json_alone(stack: Stack, web: Path) -> None:
    # Given a published page
    first = stack.publish(web)
    # When the stack's app client changes and the page is published again
    result = stack.publish(web, {**OUTPUTS, "UserPoolClientId": "2another3456789abcdefghijk"})
    # Then config.json alone is written and invalidated: the page's files and its version are the same
    assert result.uploaded == ["config.json"] and result.version == first.version
    assert json.loads(stack.body("config.json"))["client_id"] == "2another3456789abcdefghijk"
    assert stack.invalidations()[-1] == ["/config.json"]


def test_a_changed_index_html_invalidates_the_root_too(stack: Stack, web: Path) -> None:
    stack.publish(web)
    (web / "index.html").write_text((web / "index.html").read_text() + "\n")
    stack.publish(web)
    assert stack.invalidations()[-1] == ["/", "/index.html", "/sw.js"]


def test_what_cannot_be_published_as_the_page_is_refused_before_anything_is_written(stack: Stack, web: Path) -> None:
    # A file of a kind the page is not published with
    (web / "notes.txt").write_text("a draft")
    with pytest.raises(publish_page.PublishFailed, match=r"notes\.txt"):
        stack.publish(web)
    (web / "notes.txt").unlink()
    # A worker without the line its version is written in
    worker = web / "sw.js"
    worker.write_text(worker.read_text().replace("const CACHE = 'kakeibo-page-", "const CACHE = 'page-"))
    with pytest.raises(publish_page.PublishFailed, match="const CACHE"):
        stack.publish(web)
    # A stack without the outputs config.json is made from
    with pytest.raises(publish_page.PublishFailed, match="UserPoolClientId"):
        publish_page.page_config({"ApiUrl": OUTPUTS["ApiUrl"], "UserPoolId": "p"}, "ap-northeast-1")
    assert stack.keys() == set() and stack.invalidations() == []


def test_the_page_is_published_with_the_types_the_local_front_serves_it_with() -> None:
    # Given the local front's types (make run serves web/ with them)
    for suffix, published in publish_page.PAGE_TYPES.items():
        served = WEB_TYPES[suffix]
        if served.startswith("text/") or served in TEXT_TYPES:
            served += "; charset=utf-8"
        # Then the bucket's objects carry the same
        assert published == served, suffix


def _stack_body(name: str, outputs: dict[str, str]) -> str:
    """A stack of one queue whose outputs are `outputs` (the local server makes it as CloudFormation)."""
    resources = {"Marker": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": name}}}
    return json.dumps({"Resources": resources, "Outputs": {key: {"Value": value} for key, value in outputs.items()}})


def _run_script(server: S3Local, *args: str) -> subprocess.CompletedProcess[str]:
    """scripts/publish_page.py as make deploy runs it, its AWS calls sent to the local server."""
    env = {**os.environ, "AWS_ENDPOINT_URL": server.endpoint, "AWS_ACCESS_KEY_ID": "local",
           "AWS_SECRET_ACCESS_KEY": "local"}  # fmt: skip
    command = [sys.executable, str(ROOT / "scripts" / "publish_page.py"), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=False)


def test_the_script_publishes_the_stack_its_outputs_name(stack: Stack, s3_local: S3Local, web: Path) -> None:
    # Given a stack whose outputs name the API, the user pool, the page's bucket and distribution
    cloudformation = _client("cloudformation", s3_local)
    name = f"kakeibo-{uuid.uuid4().hex[:8]}"
    outputs = {
        **OUTPUTS,
        "PageBucketName": stack.bucket,
        "PageDistributionId": stack.distribution,
        "PageUrl": "https://d111111abcdef8.cloudfront.net",
    }
    cloudformation.create_stack(StackName=name, TemplateBody=_stack_body(name, outputs))
    # When make deploy's publish step runs for it
    done = _run_script(s3_local, "--stack", name, "--region", "us-east-1", "--web", str(web))
    # Then the page is in the stack's bucket, config.json naming the stack's API and pool in its region
    assert done.returncode == 0, done.stderr
    assert "PageUrl: https://d111111abcdef8.cloudfront.net" in done.stdout
    config = json.loads(stack.body("config.json"))
    assert (config["api"], config["region"], config["client_id"]) == (
        OUTPUTS["ApiUrl"], "us-east-1", OUTPUTS["UserPoolClientId"],
    )  # fmt: skip
    assert stack.keys() == _page_keys(web) | {"config.json"}
    # And run again, it says nothing changed
    again = _run_script(s3_local, "--stack", name, "--region", "us-east-1", "--web", str(web))
    assert again.returncode == 0 and "0 written, 0 deleted" in again.stdout and "invalidated: nothing" in again.stdout
    # And a stack without a page bucket (deployed from an older template) is told as such
    cloudformation.create_stack(StackName=f"{name}-old", TemplateBody=_stack_body(f"{name}-old", OUTPUTS))
    old = _run_script(s3_local, "--stack", f"{name}-old", "--region", "us-east-1")
    assert old.returncode == 1 and "no page bucket" in old.stderr, old.stderr
