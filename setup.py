from setuptools import find_packages, setup

requires = [
    "pyramid>=2.0,<3",
    "colander>=2.0,<3",
    "SQLAlchemy>=2.0,<2.1",
    "psycopg[binary]>=3.2,<4",
    "waitress>=3.0,<4",
    "alembic>=1.13,<2",
    "requests>=2.31,<3",
    "python-slugify>=8.0,<9",
    "plaster_pastedeploy>=1.0,<2",
    "Babel>=2.14,<3",
    "nh3>=0.2,<1",
    "orjson>=3.10,<4",
    "swagger-ui-py>=25.7,<26",  # the static files of the /docs page (Swagger UI 5)
    "brotli>=1.1,<2",
    "tqdm>=4.66,<5",  # the progress bars of `shopsvc CONFIG seed`
    "boto3>=1.36,<2",  # shopsvc.media_storage = s3 (an S3-compatible bucket)
    "prometheus_client>=0.21,<1",  # GET /metrics, worker --metrics-port (docs/metrics.md)
    "limits[redis]>=5.8,<6",  # shopsvc.rate_limit: sliding window counters, memory or Redis
]

tests_require = [
    "WebTest>=3.0,<4",
    "pytest>=8,<10",
    "woocommerce==3.0.0",
    "oauthlib>=3.2,<4",
    "ruff>=0.6",
    "hypothesis>=6.100,<7",
    "openapi-spec-validator>=0.7,<0.10",
    "jsonschema>=4.18,<5",
    "openapi-python-client>=0.29,<0.30",
    # tests/openapi/test_schemathesis.py: the document against the service (its hooks use the
    # 4.x check API)
    "schemathesis>=4.32,<5",
    "moto[server]>=5.0,<6",  # a local S3 server for the media storage tests
]

setup(
    name="shopsvc",
    version="0.1.0",
    description="JSON-over-HTTP shop administration API, compatible with the legacy v3 shop API",
    packages=find_packages(exclude=["tests", "tests.*"]),
    include_package_data=True,
    package_data={
        "shopsvc": [
            "migrations/*.py",
            "migrations/versions/*.py",
            "migrations/*.mako",
            "media/static/*.png",
        ]
    },
    zip_safe=False,
    python_requires=">=3.11",
    install_requires=requires,
    extras_require={"test": tests_require},
    entry_points={
        "paste.app_factory": ["main = shopsvc:main"],
        "console_scripts": ["shopsvc = shopsvc.cli.main:main"],
    },
)
