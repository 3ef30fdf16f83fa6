"""The page as the stack hosts it: a private bucket that only the stack's CloudFront distribution
reads (origin access control), HTTPS only, with a response-headers policy whose Content-Security-
Policy lets the page load nothing but its own files and reach nothing but the API, the user pool and
the receipts' S3 endpoint; the API's and the receipts bucket's CORS allow the page's origin."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from kakeibo.local import template
from tests.unit.test_template_deploy import of_type, transformed

ROOT = Path(__file__).resolve().parents[2]
API_URL = "https://a1b2c3d4e5.execute-api.{region}.amazonaws.com"
COGNITO = "https://cognito-idp.{region}.amazonaws.com"


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    return transformed(template.load(), monkeypatch)


def _resolve(value: Any, region: str) -> Any:
    """A template value as CloudFormation resolves it in `region` (the intrinsics the page's headers use)."""
    pseudo = {"AWS::Region": region, "AWS::URLSuffix": "amazonaws.com", "AWS::Partition": "aws"}
    if isinstance(value, str):
        return value
    (function, argument), *_ = value.items()
    if function == "Fn::If":
        condition, when, otherwise = argument
        assert condition == "S3GlobalEndpoint"
        return _resolve(when if region == "us-east-1" else otherwise, region)
    assert function == "Fn::Sub", value
    text, variables = (argument, {}) if isinstance(argument, str) else argument
    names = {**pseudo, **{name: _resolve(v, region) for name, v in variables.items()}}
    return re.sub(r"\$\{([^}]+)\}", lambda m: names[m.group(1)], text)


def csp(stack: dict[str, Any], region: str) -> dict[str, list[str]]:
    """The page's Content-Security-Policy in `region`, directive by directive."""
    policy = stack["Resources"]["PageHeadersPolicy"]["Properties"]["ResponseHeadersPolicyConfig"]
    header = policy["SecurityHeadersConfig"]["ContentSecurityPolicy"]
    assert header["Override"] is True
    text = _resolve(header["ContentSecurityPolicy"], region)
    directives = {}
    for part in text.split(";"):
        name, *sources = part.split()
        assert name not in directives, name
        directives[name] = sources
    return directives


def allows(sources: list[str], url: str) -> bool:
    """Whether a CSP source list lets the page (at another origin) reach `url` (scheme and host)."""
    parts = urlsplit(url)
    for source in sources:
        if source.startswith("'"):
            continue
        allowed = urlsplit(source)
        host = allowed.hostname or ""
        matched = parts.hostname == host or (host.startswith("*.") and (parts.hostname or "").endswith(host[1:]))
        if allowed.scheme == parts.scheme and matched and (parts.path or "/").startswith(allowed.path or "/"):
            return True
    return False


def test_the_page_bucket_is_private_encrypted_owner_enforced_and_no_website(stack: dict[str, Any]) -> None:
    bucket = stack["Resources"]["PageBucket"]["Properties"]
    # Then nothing about it is public, its objects are encrypted and owned by the bucket's account
    assert bucket["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True, "BlockPublicPolicy": True, "IgnorePublicAcls": True, "RestrictPublicBuckets": True,
    }  # fmt: skip
    (encryption,) = bucket["BucketEncryption"]["ServerSideEncryptionConfiguration"]
    assert encryption["ServerSideEncryptionByDefault"]["SSEAlgorithm"] == "AES256"
    assert bucket["OwnershipControls"] == {"Rules": [{"ObjectOwnership": "BucketOwnerEnforced"}]}
    # And it is no website (CloudFront reads it through S3's API) and no browser calls it (no CORS)
    assert "WebsiteConfiguration" not in bucket and "CorsConfiguration" not in bucket


def test_only_the_stack_s_distribution_reads_the_page_bucket_and_only_over_tls(stack: dict[str, Any]) -> None:
    # Given the page bucket's policy
    (policy,) = [
        p["Properties"] for p in of_type(stack, "AWS::S3::BucketPolicy").values()
        if p["Properties"]["Bucket"] == {"Ref": "PageBucket"}
    ]  # fmt: skip
    deny, allow = policy["PolicyDocument"]["Statement"]
    # Then a request without TLS is refused
    assert (deny["Effect"], deny["Principal"], deny["Action"]) == ("Deny", "*", "s3:*")
    assert deny["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    # And CloudFront may read objects only for this stack's distribution
    assert allow["Effect"] == "Allow" and allow["Principal"] == {"Service": "cloudfront.amazonaws.com"}
    assert allow["Action"] == "s3:GetObject" and allow["Resource"] == {"Fn::Sub": "${PageBucket.Arn}/*"}
    assert allow["Condition"] == {
        "StringEquals": {
            "AWS:SourceArn": {
                "Fn::Sub": "arn:${AWS::Partition}:cloudfront::${AWS::AccountId}:distribution/${PageDistribution}"
            }
        }
    }


def test_the_distribution_serves_the_bucket_through_origin_access_control_over_https_only(
    stack: dict[str, Any],
) -> None:
    resources = stack["Resources"]
    config = resources["PageDistribution"]["Properties"]["DistributionConfig"]
    # Then its one origin is the page bucket, read with requests signed by the OAC (sigv4, always)
    (origin,) = config["Origins"]
    assert origin["DomainName"] == {"Fn::GetAtt": ["PageBucket", "RegionalDomainName"]}
    assert origin["OriginAccessControlId"] == {"Fn::GetAtt": ["PageOriginAccessControl", "Id"]}
    assert origin["S3OriginConfig"] == {"OriginAccessIdentity": ""}  # no legacy OAI
    oac = resources["PageOriginAccessControl"]["Properties"]["OriginAccessControlConfig"]
    assert (oac["OriginAccessControlOriginType"], oac["SigningBehavior"], oac["SigningProtocol"]) == (
        "s3", "always", "sigv4",
    )  # fmt: skip
    # And every request is HTTPS (http is redirected), read-only, answered with the page's headers
    behavior = config["DefaultCacheBehavior"]
    assert "CacheBehaviors" not in config
    assert behavior["TargetOriginId"] == origin["Id"] and behavior["ViewerProtocolPolicy"] == "redirect-to-https"
    assert behavior["AllowedMethods"] == ["GET", "HEAD"]
    assert behavior["ResponseHeadersPolicyId"] == {"Ref": "PageHeadersPolicy"}
    assert config["DefaultRootObject"] == "index.html" and config["Enabled"] is True
    # And the stack says where the page is, and what make deploy publishes into
    outputs = stack["Outputs"]
    assert outputs["PageUrl"]["Value"] == {"Fn::Sub": "https://${PageDistribution.DomainName}"}
    assert outputs["PageBucketName"]["Value"] == {"Ref": "PageBucket"}
    assert outputs["PageDistributionId"]["Value"] == {"Ref": "PageDistribution"}


def test_the_page_s_headers_are_hsts_nosniff_no_referrer_and_no_framing(stack: dict[str, Any]) -> None:
    policy = stack["Resources"]["PageHeadersPolicy"]["Properties"]["ResponseHeadersPolicyConfig"]
    headers = policy["SecurityHeadersConfig"]
    hsts = headers["StrictTransportSecurity"]
    assert hsts["AccessControlMaxAgeSec"] >= 365 * 86400 and hsts["IncludeSubdomains"] is True
    assert headers["ContentTypeOptions"] == {"Override": True}  # X-Content-Type-Options: nosniff
    assert headers["ReferrerPolicy"] == {"Override": True, "ReferrerPolicy": "no-referrer"}
    assert headers["FrameOptions"] == {"Override": True, "FrameOption": "DENY"}
    assert all(header["Override"] is True for header in headers.values())


@pytest.mark.parametrize("region", ["ap-northeast-1", "us-east-1"])
def test_the_content_security_policy_lets_the_page_load_its_own_files_only(stack: dict[str, Any], region: str) -> None:
    policy = csp(stack, region)
    # Then nothing is allowed unless named; scripts, styles and the worker are the page's own files
    assert policy["default-src"] == ["'none'"]
    for directive in ("script-src", "style-src", "worker-src", "manifest-src", "font-src", "form-action"):
        assert policy[directive] == ["'self'"], directive
    # And no inline code, no eval, no plugins, no <base>, no framing by anyone
    assert not any("unsafe" in source for sources in policy.values() for source in sources)
    assert (policy["object-src"], policy["base-uri"], policy["frame-ancestors"]) == (["'none'"],) * 3
    assert "upgrade-insecure-requests" in policy


@pytest.mark.parametrize("region", ["ap-northeast-1", "us-east-1"])
def test_the_content_security_policy_lets_the_page_reach_the_api_the_user_pool_and_its_receipts(
    stack: dict[str, Any], region: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kakeibo import blobs

    policy = csp(stack, region)
    # Given the API's URL as the stack outputs it, and the user pool's Identity Provider API
    assert stack["Outputs"]["ApiUrl"]["Value"] == {
        "Fn::Sub": "https://${HttpApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}"
    }
    # And the receipts' presigned URLs as the function signs them in that region
    monkeypatch.setenv("AWS_REGION", region)
    monkeypatch.setenv("AWS_DEFAULT_REGION", region)
    monkeypatch.setenv("RECEIPTS_BUCKET", "kakeibo-api-receiptsbucket-abcdef")
    monkeypatch.setenv("S3_ENDPOINT_URL", "")
    blobs.reset()
    upload, _ = blobs.upload_url("receipts/l/abc", size=3, content_type="image/jpeg", sha256="00" * 32, expires=60)
    download = blobs.download_url("receipts/l/abc", expires=60)
    blobs.reset()
    # Then the page may call each of them (and nothing of another region)
    for url in (API_URL.format(region=region), COGNITO.format(region=region), upload, download):
        assert allows(policy["connect-src"], url), url
    assert not allows(policy["connect-src"], API_URL.format(region="eu-west-1"))
    assert not allows(policy["connect-src"], "https://example.com/")
    assert policy["connect-src"][0] == "'self'"
    # And show a receipt's picture (and its own: data: and blob: URLs)
    assert allows(policy["img-src"], download)
    assert policy["img-src"][:3] == ["'self'", "data:", "blob:"]


def test_the_page_needs_nothing_its_content_security_policy_refuses() -> None:
    # Given the page's HTML
    html = (ROOT / "web" / "index.html").read_text(encoding="utf-8")
    # Then its scripts are files of its own (script-src 'self': an inline one would not run)
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S)
    assert scripts and all("src=" in attrs and not body.strip() for attrs, body in scripts)
    # And no inline handlers or styles (style-src 'self'), nothing loaded from elsewhere
    assert not re.search(r"\son[a-z]+=", html) and "<style" not in html and "style=" not in html
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)
    # And no script of the page evaluates text as code
    for path in (ROOT / "web").rglob("*.js"):
        code = path.read_text(encoding="utf-8")
        assert not re.search(r"\beval\(|new Function\(", code), path


def test_the_api_and_the_receipts_bucket_allow_the_page_s_origin(stack: dict[str, Any]) -> None:
    # Given the page's origin and the origins of AllowedOrigins, as the API's CORS and the receipts
    # bucket's name them
    both = {
        "Fn::Split": [
            ",",
            {
                "Fn::Sub": [
                    "${Listed},https://${PageDistribution.DomainName}",
                    {"Listed": {"Fn::Join": [",", {"Ref": "AllowedOrigins"}]}},
                ]
            },
        ]
    }
    (api,) = of_type(stack, "AWS::ApiGatewayV2::Api").values()
    assert api["Properties"]["CorsConfiguration"]["AllowOrigins"] == both
    (rule,) = stack["Resources"]["ReceiptsBucket"]["Properties"]["CorsConfiguration"]["CorsRules"]
    assert rule["AllowedOrigins"] == both
    # And locally (no distribution: the local front serves the page) the parameter's origins alone
    assert template.cors()["AllowOrigins"] == ["http://localhost:3000", "http://127.0.0.1:3000"]
    (local,) = template.bucket_cors("ReceiptsBucket")["CORSRules"]
    assert local["AllowedOrigins"] == ["http://localhost:3000", "http://127.0.0.1:3000"]


def test_the_page_s_headers_and_distribution_do_not_name_the_api() -> None:
    """The API's CORS names the distribution: were the distribution to name the API, neither could be
    made first."""
    resources = template.load()["Resources"]
    for name in ("PageDistribution", "PageHeadersPolicy", "PageOriginAccessControl", "PageBucket", "PageBucketPolicy"):
        text = repr(resources[name])
        assert "HttpApi" not in text and "Receipts" not in text, name
