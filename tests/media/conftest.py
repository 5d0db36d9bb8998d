"""The S3 protocol server of the media storage tests: moto's ``ThreadedMotoServer`` on 127.0.0.1
(a free port), started once for the session; each test gets a bucket of its own, fake
credentials in its environment only, and an app whose media live in that bucket."""

from __future__ import annotations

import json
import logging
import socket
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import pytest
from botocore.config import Config
from moto.server import ThreadedMotoServer
from webtest import TestApp

REGION = "us-east-1"
#: The names boto3's credential chain reads, set for a test only (moto accepts any key).
FAKE_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": REGION,
    "AWS_EC2_METADATA_DISABLED": "true",
}


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """The URL of a local S3 server (moto), for the whole session."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """Fake credentials for this test's process environment (boto3's standard chain), and no
    shared config or credentials file of the machine's."""
    for name, value in FAKE_CREDENTIALS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    for name in ("AWS_PROFILE", "AWS_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"):
        monkeypatch.delenv(name, raising=False)


@dataclass
class Bucket:
    """A bucket of the local S3 server, and a client to look into it."""

    name: str
    endpoint: str
    client: Any
    prefix: str = "shop"

    @property
    def public_url(self) -> str:
        """Where the bucket's objects are fetched (path-style, the prefix included): the
        ``media_url`` of the apps."""
        return f"{self.endpoint}/{self.name}/{self.prefix}"

    def keys(self) -> list[str]:
        answer = self.client.list_objects_v2(Bucket=self.name)
        return sorted(item["Key"] for item in answer.get("Contents", []))

    def names(self) -> list[str]:
        """The stored names (keys without the prefix), the placeholder left out."""
        start = f"{self.prefix}/"
        return [key[len(start) :] for key in self.keys() if key != f"{start}placeholder.png"]

    def head(self, name: str) -> dict[str, Any]:
        return self.client.head_object(Bucket=self.name, Key=f"{self.prefix}/{name}")

    def body(self, name: str) -> bytes:
        answer = self.client.get_object(Bucket=self.name, Key=f"{self.prefix}/{name}")
        return bytes(answer["Body"].read())

    def settings(self, **extra: str) -> dict[str, str]:
        """The ini settings of an app whose media live in this bucket."""
        return {
            "shopsvc.media_storage": "s3",
            "shopsvc.s3.bucket": self.name,
            "shopsvc.s3.prefix": self.prefix,
            "shopsvc.s3.endpoint_url": self.endpoint,
            "shopsvc.s3.region": REGION,
            "shopsvc.s3.addressing_style": "path",
            "shopsvc.media_url": self.public_url,
            **extra,
        }


@pytest.fixture
def bucket(s3_endpoint: str, aws_env: None) -> Bucket:
    """A new, empty bucket for this test, its objects readable by anyone."""
    client = boto3.client(
        "s3",
        endpoint_url=s3_endpoint,
        region_name=REGION,
        config=Config(s3={"addressing_style": "path"}),
    )
    name = f"shop-media-{uuid.uuid4().hex[:12]}"
    client.create_bucket(Bucket=name)
    # Anyone may read the objects (what docs/deployment.md asks of a bucket behind media_url).
    client.put_bucket_policy(Bucket=name, Policy=json.dumps(public_read(name)))
    return Bucket(name, s3_endpoint, client)


def public_read(bucket: str) -> dict[str, Any]:
    """A bucket policy that lets anyone GET the bucket's objects."""
    statement = {
        "Effect": "Allow",
        "Principal": "*",
        "Action": "s3:GetObject",
        "Resource": f"arn:aws:s3:::{bucket}/*",
    }
    return {"Version": "2012-10-17", "Statement": [statement]}


def closed_port_url() -> str:
    """An http URL on 127.0.0.1 where nothing listens (connections are refused at once)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def s3_app(build_app: Callable[..., TestApp], bucket: Bucket) -> Callable[..., TestApp]:
    """``build_app`` with the media in this test's bucket (plus any other settings)."""

    def build(**settings: str) -> TestApp:
        return build_app(**bucket.settings(**settings))

    return build
