"""The HTTP API and the frontend it serves, through FastAPI's TestClient."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from kscope import __version__
from kscope.api.app import create_app
from kscope.core.config import Settings
from kscope.topology import topology_of

# The machines of the seed write-ups (shared/seeds/), plus the classroom one.
SEED_MACHINES = {"classroom-8", "epyc-9654-2s", "genoa-4n", "spr-2s", "gnr-2s-snc", "hcc-2s-480"}


def client_for(dist: Path) -> TestClient:
    return TestClient(create_app(Settings(frontend_dist=dist)))


@pytest.fixture
def built_dist(tmp_path: Path) -> Path:
    (tmp_path / "assets").mkdir()
    (tmp_path / "index.html").write_text("<!doctype html><title>kscope</title><div id=root></div>")
    (tmp_path / "assets" / "app.js").write_text("console.log('kscope');")
    (tmp_path / "assets" / "kscope_core.wasm").write_bytes(b"\0asm\1\0\0\0")
    return tmp_path


@pytest.fixture
def client(built_dist: Path) -> TestClient:
    return client_for(built_dist)


def test_health(client: TestClient) -> None:
    response = client.get("/api/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "version": __version__, "core_version": "0.1.0"}


def test_topology_list(client: TestClient) -> None:
    response = client.get("/api/topologies")
    assert response.status_code == 200
    assert {p["name"] for p in response.json()} >= SEED_MACHINES


def test_topology_equals_topology_of(client: TestClient) -> None:
    response = client.get("/api/topologies/epyc-9654-2s")
    assert response.status_code == 200
    assert response.json() == topology_of("epyc-9654-2s")


def test_unknown_topology_is_404_naming_name_and_presets(client: TestClient) -> None:
    response = client.get("/api/topologies/pdp-11")
    assert response.status_code == 404
    detail = response.json()["detail"]
    assert "'pdp-11'" in detail
    assert "classroom-8" in detail and "epyc-9654-2s" in detail


def test_unknown_api_path_stays_json_404(client: TestClient) -> None:
    response = client.get("/api/nothing/here")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {"detail": "Not Found"}


def test_docs_and_openapi(client: TestClient) -> None:
    assert client.get("/docs").status_code == 200
    schema = client.get("/openapi.json").json()
    assert {"/api/health", "/api/topologies", "/api/topologies/{name}"} <= set(schema["paths"])
    assert {"Health", "PresetPublic", "TopologyPublic"} <= set(schema["components"]["schemas"])


def test_frontend_not_built_is_a_503_page(tmp_path: Path) -> None:
    client = client_for(tmp_path / "missing-dist")
    for path in ("/", "/lessons/mm-cid"):
        response = client.get(path)
        assert response.status_code == 503
        assert response.headers["content-type"].startswith("text/html")
        assert "not built" in response.text and "npm start" in response.text
    assert client.get("/api/health").status_code == 200


def test_serves_index_and_assets(client: TestClient) -> None:
    index = client.get("/")
    assert index.status_code == 200
    assert "<div id=root>" in index.text
    asset = client.get("/assets/app.js")
    assert asset.status_code == 200
    assert asset.text == "console.log('kscope');"
    wasm = client.get("/assets/kscope_core.wasm")
    assert wasm.status_code == 200
    assert wasm.headers["content-type"] == "application/wasm"


def test_unknown_page_falls_back_to_index(client: TestClient) -> None:
    response = client.get("/views/llc/epyc-9654-2s")
    assert response.status_code == 200
    assert "<div id=root>" in response.text


def test_missing_built_file_is_404_not_the_app_page(client: TestClient) -> None:
    assert client.get("/assets/missing-abc123.js").status_code == 404
    assert client.get("/favicon.ico").status_code == 404
