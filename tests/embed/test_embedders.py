"""The real embedders: the offline models from the installed wheels, a user's ONNX model folder, and
an OpenAI-compatible endpoint served by a real local HTTP server.

Each model loads once per module (a few seconds); the HTTP server is started once and its behaviour
switched per test through `ServerState`."""

from __future__ import annotations

import json
import logging
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

import memlsp.embed.onnx
from memlsp.embed.base import Embedder, EmbedderError, knows_word, vector_parts
from memlsp.embed.bilingual import CJK_QUERY, LATIN_QUERY, BilingualEmbedder
from memlsp.embed.factory import MINILM_ID, build_embedder
from memlsp.embed.onnx import OnnxEmbedder, bundled_minilm, integer_model
from memlsp.embed.remote import EndpointEmbedder
from memlsp.embed.use import UseEmbedder
from memlsp.index.vectors import VectorStore
from memlsp.settings.table import Settings
from tests.helpers.fake_embedder import FakeEmbedder, embeddings_answer, send_json

MINILM_DIM = 384
USE_DIM = 512

# Four topics, each as an English note, a Chinese note, an English question and a Chinese question.
EN_NOTES = [
    "Keeping a notebook computer cool: clean the fan and use a stand.",
    "A recipe for apple pie with cinnamon and butter.",
    "The train to Paris leaves from platform four at noon.",
    "Water your tomato plants every morning in summer.",
]
ZH_NOTES = [
    "笔记本电脑散热：清理风扇，使用散热支架。",
    "苹果派的做法：面粉、黄油和肉桂。",
    "去巴黎的火车中午从四号站台出发。",
    "夏天每天早上给番茄浇水。",
]
EN_QUERIES = [
    "how do I stop my laptop overheating",
    "how to bake a pie",
    "when does the train to Paris leave",
    "how often should I water tomatoes",
]
ZH_QUERIES = ["电脑太热怎么办", "怎么做苹果派", "火车几点出发", "番茄多久浇一次水"]


def ranking(embedder: Embedder, query: str, docs: list[str]) -> list[int]:
    """Indexes of `docs`, nearest to `query` first."""
    scores = embedder.embed_documents(docs) @ embedder.embed_query(query)[0]
    return [int(i) for i in np.argsort(-scores)]


def nearest(embedder: Embedder, queries: list[str], docs: list[str]) -> list[int]:
    """For each query, the index of its nearest doc (the docs embedded once)."""
    vectors = embedder.embed_documents(docs)
    return [int(np.argmax(vectors @ embedder.embed_query(query)[0])) for query in queries]


def cosine(embedder: Embedder, a: str, b: str) -> float:
    return float(embedder.embed_query(a)[0] @ embedder.embed_documents([b])[0])


# Loading MiniLM may convert it to int8 in a child process (once per machine, and again after its
# cache is cleared): tests that ask for these are marked e2e by tests/conftest.py.
LOADS_MINILM = {"minilm", "bilingual", "onnx_folder_embedder"}


# --- fixtures: each real model loaded once -------------------------------------------------------


@pytest.fixture(scope="module")
def minilm() -> Embedder:
    embedder = build_embedder(Settings(embedder="minilm"))
    assert embedder is not None
    return embedder


@pytest.fixture(scope="module")
def use() -> Embedder:
    embedder = build_embedder(Settings(embedder="use"))
    assert embedder is not None
    return embedder


@pytest.fixture(scope="module")
def bilingual() -> Embedder:
    embedder = build_embedder(Settings())
    assert embedder is not None
    return embedder


def model_folder(folder: Path) -> Path:
    """A user's model folder whose files are symlinks to the bundled MiniLM."""
    model, tokenizer = bundled_minilm()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "model.onnx").symlink_to(model)
    (folder / "tokenizer.json").symlink_to(tokenizer)
    return folder


@pytest.fixture(scope="module")
def onnx_folder_embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    folder = model_folder(tmp_path_factory.mktemp("models") / "my-model")
    embedder = build_embedder(Settings(embedder="onnx", embedder_model_dir=str(folder)))
    assert embedder is not None
    return embedder


# --- a real OpenAI-compatible /v1/embeddings server -----------------------------------------------


@dataclass
class ServerState:
    mode: str = "ok"  # ok | 500 | raw (send `raw` as the whole answer) | slow
    raw: bytes = b""
    dimension_override: int | None = None  # answer with this dimension whatever the model
    requests: list[dict[str, object]] = field(default_factory=list)

    def reset(self) -> None:
        self.mode = "ok"
        self.raw = b""
        self.dimension_override = None
        self.requests.clear()


def make_handler(state: ServerState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            state.requests.append(
                {
                    "path": self.path,
                    "authorization": self.headers.get("Authorization"),
                    "content_type": self.headers.get("Content-Type"),
                    "body": body,
                }
            )
            if self.path != "/v1/embeddings":
                self.send_error(404)
                return
            if state.mode == "500":
                self.send_error(500, "model crashed")
                return
            if state.mode == "raw":
                self.wfile.write(state.raw)
                self.wfile.flush()
                self.close_connection = True
                return
            if state.mode == "slow":
                time.sleep(1.0)
            # The model "fake-<n>" embeds with n dimensions.
            dimension = state.dimension_override or int(body["model"].rsplit("-", 1)[1])
            # A server may answer out of order: the client must sort by index.
            send_json(
                self, embeddings_answer(body["model"], body["input"], dimension, reverse=True)
            )

    return Handler


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, ServerState]]:
    """The base URL `http://127.0.0.1:<port>/v1` and the state that steers the server."""
    state = ServerState()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state))
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@pytest.fixture
def endpoint(server: tuple[str, ServerState]) -> Iterator[tuple[str, ServerState]]:
    """The server, answering normally at the start and the end of the test."""
    url, state = server
    state.reset()
    yield url, state
    state.reset()


@pytest.fixture(scope="module")
def endpoint_embedder(server: tuple[str, ServerState]) -> Embedder:
    url, state = server
    state.reset()
    embedder = build_embedder(
        Settings(embedder="endpoint", embedder_url=url, embedder_model="fake-48")
    )
    assert embedder is not None
    return embedder


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


# --- every embedder: the Embedder contract -------------------------------------------------------

ALL = [
    ("minilm", MINILM_DIM),
    ("use", USE_DIM),
    ("bilingual", MINILM_DIM + 2 * USE_DIM),
    ("onnx_folder_embedder", MINILM_DIM),
    ("endpoint_embedder", 48),
]
# English and Chinese texts, more than the models' batch sizes (16 MiniLM, 32 USE) so batches are
# concatenated; the endpoint's batches of 64 are tested below.
MANY = [f"{note} Note number {i}." for i in range(9) for note in EN_NOTES[:2]] + [
    f"{note}第{i}条。" for i in range(9) for note in ZH_NOTES[:2]
]


@pytest.fixture(
    params=[
        pytest.param(name, marks=[pytest.mark.e2e] if name in LOADS_MINILM else [])
        for name, _ in ALL
    ]
)
def any_embedder(request: pytest.FixtureRequest, endpoint: object) -> tuple[Embedder, int]:
    dimensions = dict(ALL)
    embedder: Embedder = request.getfixturevalue(request.param)
    return embedder, dimensions[request.param]


def test_rows_are_unit_float32_of_the_dimension(any_embedder: tuple[Embedder, int]) -> None:
    embedder, dimension = any_embedder
    assert embedder.dimension == dimension
    vectors = embedder.embed_documents(MANY)
    assert vectors.dtype == np.float32
    assert vectors.shape == (len(MANY), dimension)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    query = embedder.embed_query("how do I stop my laptop overheating")
    assert query.dtype == np.float32
    assert query.shape == (1, dimension)
    assert np.linalg.norm(query[0]) == pytest.approx(1.0, abs=1e-5)


def test_no_texts_give_an_empty_matrix(any_embedder: tuple[Embedder, int]) -> None:
    embedder, dimension = any_embedder
    vectors = embedder.embed_documents([])
    assert vectors.shape == (0, dimension)
    assert vectors.dtype == np.float32


def test_embedding_is_deterministic_and_keeps_row_order(
    any_embedder: tuple[Embedder, int],
) -> None:
    embedder, _ = any_embedder
    first = embedder.embed_documents(MANY)
    again = embedder.embed_documents(MANY)
    np.testing.assert_array_equal(first, again)
    # Row i is text i's own vector, whichever batch it fell in.
    for i in (0, 1, 17, 20, len(MANY) - 1):
        alone = embedder.embed_documents([MANY[i]])[0]
        np.testing.assert_allclose(first[i], alone, atol=1e-4)
    # Different texts get different vectors.
    assert not np.allclose(first[0], first[1])
    np.testing.assert_array_equal(
        embedder.embed_query("same text"), embedder.embed_query("same text")
    )


# --- MiniLM ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "paraphrase", "unrelated"),
    [
        (
            "how do I stop my laptop overheating",
            "keeping a notebook computer cool",
            "a recipe for apple pie",
        ),
        (
            "the meeting was moved to Thursday",
            "we rescheduled the meeting for Thursday",
            "whales migrate thousands of miles",
        ),
        (
            "my dog keeps barking at night",
            "the puppy is noisy after dark",
            "the stock market fell sharply today",
        ),
        (
            "how to reset a forgotten password",
            "recovering access when you lost your login",
            "tomatoes need plenty of sunlight",
        ),
    ],
)
def test_minilm_puts_a_paraphrase_nearer_than_an_unrelated_sentence(
    minilm: Embedder, query: str, paraphrase: str, unrelated: str
) -> None:
    near, far = cosine(minilm, query, paraphrase), cosine(minilm, query, unrelated)
    assert near > far + 0.2, (near, far)


def test_minilm_ranks_the_right_english_note_first(minilm: Embedder) -> None:
    assert nearest(minilm, EN_QUERIES, EN_NOTES) == [0, 1, 2, 3]


# --- USE -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "paraphrase", "unrelated"),
    [
        ("笔记本电脑太热了怎么办", "如何防止笔记本电脑过热", "苹果派的做法"),
        ("明天会下雨吗", "明天的天气预报说会下雨", "我的猫喜欢睡在沙发上"),
        ("会议改到星期四了", "我们把会议推迟到周四", "鲸鱼每年迁徙数千公里"),
    ],
)
def test_use_puts_a_chinese_paraphrase_nearer_than_an_unrelated_sentence(
    use: Embedder, query: str, paraphrase: str, unrelated: str
) -> None:
    near, far = cosine(use, query, paraphrase), cosine(use, query, unrelated)
    assert near > far + 0.2, (near, far)


def test_use_ranks_the_right_chinese_note_for_chinese_and_english_questions(use: Embedder) -> None:
    assert nearest(use, ZH_QUERIES, ZH_NOTES) == [0, 1, 2, 3]
    assert nearest(use, EN_QUERIES, ZH_NOTES) == [0, 1, 2, 3]


def test_use_finds_the_chinese_translation_of_an_english_sentence(use: Embedder) -> None:
    chinese = [
        "我的猫喜欢睡在沙发上",
        "明天的天气预报说会下雨",
        "如何防止笔记本电脑过热",
        "苹果派的做法",
    ]
    assert ranking(use, "the weather forecast says it will rain tomorrow", chinese)[0] == 1
    assert ranking(use, "my cat likes to sleep on the sofa", chinese)[0] == 0


# --- bilingual (the default) ----------------------------------------------------------------------


def test_default_embedder_is_bilingual_over_both_models(bilingual: Embedder) -> None:
    assert isinstance(bilingual, BilingualEmbedder)
    assert MINILM_ID in bilingual.id
    assert UseEmbedder.id in bilingual.id
    assert bilingual.dimension == MINILM_DIM + 2 * USE_DIM


# The three blocks of a bilingual vector: MiniLM, USE of a Chinese chunk, USE of a Latin one.
LATIN = slice(0, MINILM_DIM)
CJK = slice(MINILM_DIM, MINILM_DIM + USE_DIM)
BRIDGE = slice(MINILM_DIM + USE_DIM, MINILM_DIM + 2 * USE_DIM)


def test_bilingual_chunk_uses_the_blocks_of_its_script(
    bilingual: Embedder, minilm: Embedder, use: Embedder
) -> None:
    chinese, english = bilingual.embed_documents([ZH_NOTES[0], EN_NOTES[0]])
    assert not chinese[LATIN].any() and not chinese[BRIDGE].any()
    assert np.linalg.norm(chinese[CJK]) == pytest.approx(1.0, abs=1e-5)
    assert not english[CJK].any()
    half = np.sqrt(0.5)  # the row has unit length, shared by its two blocks
    # Each block is that model's own vector.
    np.testing.assert_allclose(chinese[CJK], use.embed_documents([ZH_NOTES[0]])[0], atol=1e-5)
    latin, bridge = english[LATIN] / half, english[BRIDGE] / half
    np.testing.assert_allclose(latin, minilm.embed_documents([EN_NOTES[0]])[0], atol=1e-5)
    np.testing.assert_allclose(bridge, use.embed_documents([EN_NOTES[0]])[0], atol=1e-5)


def test_bilingual_script_threshold(bilingual: Embedder) -> None:
    texts = [
        "我们用 Python 和 Docker 部署了服务",  # Chinese with English terms: Chinese
        "The word for cat is 猫 in Chinese, and it is written simply",  # one character: English
    ]
    mostly_chinese, mostly_english = bilingual.embed_documents(texts)
    assert not mostly_chinese[LATIN].any() and mostly_chinese[CJK].any()
    assert not mostly_english[CJK].any() and mostly_english[LATIN].any()


def test_bilingual_mixed_batch_keeps_each_row_in_place(bilingual: Embedder) -> None:
    texts = [EN_NOTES[0], ZH_NOTES[1], EN_NOTES[2], ZH_NOTES[3], ZH_NOTES[0]]
    together = bilingual.embed_documents(texts)
    for i, text in enumerate(texts):
        np.testing.assert_allclose(together[i], bilingual.embed_documents([text])[0], atol=1e-5)


@pytest.mark.parametrize(
    ("query", "weights"), [(EN_QUERIES[0], LATIN_QUERY), (ZH_QUERIES[0], CJK_QUERY)]
)
def test_bilingual_query_weighs_the_blocks_by_its_script(
    bilingual: Embedder, query: str, weights: tuple[float, float, float]
) -> None:
    vector = bilingual.embed_query(query)[0]
    norms = [float(np.linalg.norm(vector[block])) for block in (LATIN, CJK, BRIDGE)]
    assert norms == pytest.approx([w / float(np.linalg.norm(weights)) for w in weights], rel=1e-4)


def test_bilingual_english_question_finds_the_chinese_note(bilingual: Embedder) -> None:
    assert nearest(bilingual, EN_QUERIES, ZH_NOTES) == [0, 1, 2, 3]


def test_bilingual_chinese_question_finds_the_chinese_note(bilingual: Embedder) -> None:
    assert nearest(bilingual, ZH_QUERIES, ZH_NOTES) == [0, 1, 2, 3]


def test_bilingual_english_question_finds_the_english_note(bilingual: Embedder) -> None:
    assert nearest(bilingual, EN_QUERIES, EN_NOTES) == [0, 1, 2, 3]


def nearest_stored(
    embedder: Embedder, queries: list[str], docs: list[str], where: Path
) -> list[int]:
    """As `nearest`, through the Chroma store and its blocks, as a search asks it."""
    store = VectorStore(where, "vault", embedder.id, vector_parts(embedder))
    ids = [str(i) for i in range(len(docs))]
    store.upsert(ids, embedder.embed_documents(docs), ids)
    return [int(store.query(embedder.embed_query(query)[0], 1)[0].chunk_id) for query in queries]


def test_bilingual_chinese_question_finds_the_english_note(
    bilingual: Embedder, tmp_path: Path
) -> None:
    # Through the English notes' bridge vectors: USE reads both languages.
    assert nearest_stored(bilingual, ZH_QUERIES, EN_NOTES, tmp_path / "v") == [0, 1, 2, 3]


def test_bilingual_stored_blocks_keep_each_language_with_its_model(
    bilingual: Embedder, tmp_path: Path
) -> None:
    docs = EN_NOTES + ZH_NOTES
    english = nearest_stored(bilingual, EN_QUERIES, docs, tmp_path / "v")
    assert english == [0, 1, 2, 3]  # MiniLM for English notes, ahead of USE's cross-lingual
    chinese = nearest_stored(bilingual, ZH_QUERIES, docs, tmp_path / "v")
    assert chinese == [4, 5, 6, 7]  # a Chinese note reads its own language best


def test_bilingual_chinese_notes_do_not_load_minilm() -> None:
    embedder = build_embedder(Settings())
    assert isinstance(embedder, BilingualEmbedder)
    embedder.embed_documents(ZH_NOTES)
    assert embedder.cjk.loaded
    assert not embedder.latin.loaded


# --- a user's ONNX model folder -------------------------------------------------------------------


def test_model_folder_embeds_like_minilm_under_its_own_id(
    onnx_folder_embedder: Embedder, minilm: Embedder
) -> None:
    """A user's model runs as given: the bundled MiniLM's files in a folder embed as that model
    loaded as shipped, and close to the default's int8 conversion of it."""
    texts = EN_NOTES + ZH_NOTES
    as_shipped = OnnxEmbedder(*bundled_minilm(), "as-shipped")
    folder_vectors = onnx_folder_embedder.embed_documents(texts)
    np.testing.assert_allclose(folder_vectors, as_shipped.embed_documents(texts), atol=1e-5)
    np.testing.assert_allclose(
        onnx_folder_embedder.embed_query(EN_QUERIES[0]),
        as_shipped.embed_query(EN_QUERIES[0]),
        atol=1e-5,
    )
    assert (folder_vectors * minilm.embed_documents(texts)).sum(axis=1).min() > 0.97
    assert onnx_folder_embedder.id != minilm.id
    assert "my-model" in onnx_folder_embedder.id


def test_model_folder_id_changes_when_the_model_file_changes(tmp_path: Path) -> None:
    folder = model_folder(tmp_path / "model")
    settings = Settings(embedder="onnx", embedder_model_dir=str(folder))
    first = build_embedder(settings)
    assert first is not None
    same = build_embedder(settings)
    assert same is not None and same.id == first.id  # stable while the file is unchanged

    model = folder / "model.onnx"
    target = model.resolve()
    model.unlink()
    shutil.copyfile(target, model)
    stat = target.stat()
    os.utime(model, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    copied = build_embedder(settings)
    assert copied is not None
    assert copied.id != first.id
    np.testing.assert_allclose(
        copied.embed_documents(EN_NOTES), first.embed_documents(EN_NOTES), atol=1e-5
    )

    model.touch()
    os.utime(model, ns=(stat.st_atime_ns, stat.st_mtime_ns + 9_000_000_000))
    touched = build_embedder(settings)
    assert touched is not None
    assert touched.id not in (first.id, copied.id)


def test_model_folder_without_tokenizer_is_an_error(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "model.onnx").symlink_to(bundled_minilm()[0])
    with pytest.raises(EmbedderError, match=r"tokenizer\.json"):
        build_embedder(Settings(embedder="onnx", embedder_model_dir=str(folder)))


def test_missing_model_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(EmbedderError, match=r"model\.onnx"):
        build_embedder(Settings(embedder="onnx", embedder_model_dir=str(tmp_path / "nowhere")))


def test_model_folder_with_a_broken_model_is_an_error(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "model.onnx").write_bytes(b"this is not an onnx model")
    (folder / "tokenizer.json").symlink_to(bundled_minilm()[1])
    with pytest.raises(EmbedderError, match="cannot load"):
        build_embedder(Settings(embedder="onnx", embedder_model_dir=str(folder)))


def test_onnx_without_a_model_folder_is_an_error() -> None:
    with pytest.raises(EmbedderError, match="embedder_model_dir"):
        build_embedder(Settings(embedder="onnx"))


# --- an OpenAI-compatible endpoint ----------------------------------------------------------------


def test_endpoint_embeds_through_the_server_in_index_order(
    endpoint: tuple[str, ServerState],
) -> None:
    url, state = endpoint
    embedder = build_embedder(
        Settings(embedder="endpoint", embedder_url=url, embedder_model="fake-48")
    )
    assert embedder is not None
    texts = [f"note {i} about topic {i % 7}" for i in range(70)]  # two requests of at most 64
    state.requests.clear()
    vectors = embedder.embed_documents(texts)
    np.testing.assert_allclose(vectors, FakeEmbedder(48).embed_documents(texts), atol=1e-6)
    np.testing.assert_allclose(
        embedder.embed_query("note 3"), FakeEmbedder(48).embed_query("note 3"), atol=1e-6
    )
    posted = state.requests
    assert [len(r["body"]["input"]) for r in posted] == [64, 6, 1]  # type: ignore[index]
    assert all(r["path"] == "/v1/embeddings" for r in posted)
    assert all(r["body"]["model"] == "fake-48" for r in posted)  # type: ignore[index]
    assert all(r["content_type"] == "application/json" for r in posted)


@pytest.mark.parametrize("suffix", ["/v1", "/v1/", "/v1/embeddings"])
def test_endpoint_url_with_or_without_embeddings(
    endpoint: tuple[str, ServerState], suffix: str
) -> None:
    url, state = endpoint
    base = url.removesuffix("/v1")
    embedder = EndpointEmbedder(base + suffix, "fake-8", timeout=2.0)
    assert embedder.dimension == 8
    assert state.requests[-1]["path"] == "/v1/embeddings"


def test_endpoint_learns_its_dimension_from_the_server(endpoint: tuple[str, ServerState]) -> None:
    url, _ = endpoint
    for dimension in (24, 100):
        embedder = build_embedder(
            Settings(embedder="endpoint", embedder_url=url, embedder_model=f"fake-{dimension}")
        )
        assert embedder is not None
        assert embedder.dimension == dimension
        assert embedder.id == f"endpoint-fake-{dimension}-{dimension}"
        assert embedder.embed_documents(["a", "b"]).shape == (2, dimension)


def test_endpoint_sends_the_api_key_from_the_named_variable(
    endpoint: tuple[str, ServerState], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, state = endpoint
    monkeypatch.setenv("MEMLSP_TEST_EMBED_KEY", "sk-test-123")
    embedder = build_embedder(
        Settings(
            embedder="endpoint",
            embedder_url=url,
            embedder_model="fake-16",
            embedder_api_key_env="MEMLSP_TEST_EMBED_KEY",
        )
    )
    assert embedder is not None
    embedder.embed_documents(["hello"])
    assert state.requests
    assert all(r["authorization"] == "Bearer sk-test-123" for r in state.requests)


@pytest.mark.parametrize("key_env", ["", "MEMLSP_TEST_EMBED_KEY"])
def test_endpoint_sends_no_authorization_without_a_key(
    endpoint: tuple[str, ServerState], monkeypatch: pytest.MonkeyPatch, key_env: str
) -> None:
    url, state = endpoint
    monkeypatch.delenv("MEMLSP_TEST_EMBED_KEY", raising=False)
    embedder = build_embedder(
        Settings(
            embedder="endpoint",
            embedder_url=url,
            embedder_model="fake-16",
            embedder_api_key_env=key_env,
        )
    )
    assert embedder is not None
    embedder.embed_query("hello")
    assert state.requests
    assert all(r["authorization"] is None for r in state.requests)


def test_endpoint_answering_500_is_an_embedder_error(endpoint: tuple[str, ServerState]) -> None:
    url, state = endpoint
    state.mode = "500"
    with pytest.raises(EmbedderError, match="500"):
        EndpointEmbedder(url, "fake-16", timeout=2.0)
    # And after a good start, a later failure too.
    state.mode = "ok"
    embedder = EndpointEmbedder(url, "fake-16", timeout=2.0)
    state.mode = "500"
    with pytest.raises(EmbedderError):
        embedder.embed_documents(["hello"])
    with pytest.raises(EmbedderError):
        embedder.embed_query("hello")


def test_endpoint_on_a_closed_port_is_an_embedder_error() -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(EmbedderError, match="failed"):
        EndpointEmbedder(url, "fake-16", timeout=2.0)
    with pytest.raises(EmbedderError):
        build_embedder(Settings(embedder="endpoint", embedder_url=url, embedder_model="fake-16"))


def test_endpoint_too_slow_is_an_embedder_error(endpoint: tuple[str, ServerState]) -> None:
    url, state = endpoint
    state.mode = "slow"
    with pytest.raises(EmbedderError):
        EndpointEmbedder(url, "fake-16", timeout=0.2)


def _http_200(body: bytes) -> bytes:
    head = (
        f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


@pytest.mark.parametrize(
    "body",
    [
        b"{not json",
        b"",
        b"\xff\xfe garbage",
        b"[]",
        b'"data"',
        b"{}",
        b'{"data": null}',
        b'{"data": "xyz"}',
        b'{"data": [{"index": 0}]}',
        b'{"data": [{"embedding": [1.0, 2.0]}]}',
        b'{"data": [{"index": 0, "embedding": ["a", "b"]}]}',
        b'{"data": [{"index": 0, "embedding": {"a": 1}}]}',
        b'{"data": [{"index": 0, "embedding": [[1.0], [2.0]]}]}',
        b'{"data": [{"index": 0, "embedding": [1.0]}, {"index": 1, "embedding": [2.0]}]}',
        b'{"data": []}',
    ],
)
def test_endpoint_malformed_answer_is_an_embedder_error(
    endpoint: tuple[str, ServerState], body: bytes
) -> None:
    url, state = endpoint
    state.mode = "raw"
    state.raw = _http_200(body)
    with pytest.raises(EmbedderError):
        EndpointEmbedder(url, "fake-16", timeout=2.0)


@pytest.mark.parametrize(
    "raw",
    [
        b"this is not HTTP\r\n\r\n",  # http.client.BadStatusLine
        b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n" + b'{"data": [',  # IncompleteRead
    ],
    ids=["bad-status-line", "truncated-body"],
)
def test_endpoint_broken_http_is_an_embedder_error(
    endpoint: tuple[str, ServerState], raw: bytes
) -> None:
    url, state = endpoint
    state.mode = "raw"
    state.raw = raw
    with pytest.raises(EmbedderError):
        EndpointEmbedder(url, "fake-16", timeout=2.0)


def test_endpoint_changing_dimension_after_the_probe_is_an_embedder_error(
    endpoint: tuple[str, ServerState],
) -> None:
    url, state = endpoint
    embedder = EndpointEmbedder(url, "fake-16", timeout=2.0)
    state.dimension_override = 32
    with pytest.raises(EmbedderError):
        embedder.embed_documents(["one", "two"])
    with pytest.raises(EmbedderError):
        embedder.embed_query("one")


def test_endpoint_settings_are_checked() -> None:
    with pytest.raises(EmbedderError, match="URL"):
        build_embedder(Settings(embedder="endpoint", embedder_url="", embedder_model="m"))
    with pytest.raises(EmbedderError, match="URL"):
        build_embedder(Settings(embedder="endpoint", embedder_url="ftp://x/v1", embedder_model="m"))
    with pytest.raises(EmbedderError, match="embedder_model"):
        build_embedder(Settings(embedder="endpoint", embedder_url="http://127.0.0.1:1/v1"))


# --- none and unknown ------------------------------------------------------------------------------


def test_none_embedder_is_none() -> None:
    assert build_embedder(Settings(embedder="none")) is None


def test_unknown_embedder_is_an_error() -> None:
    with pytest.raises(EmbedderError, match="unknown embedder"):
        build_embedder(Settings(embedder="word2vec"))


@pytest.mark.e2e  # MiniLM's int8 conversion runs in a child process
def test_the_default_model_tells_words_from_letter_soup() -> None:
    """`qwzxplk` falls into many word pieces: the model has no meaning for it."""
    embedder = build_embedder(Settings())
    assert embedder is not None
    for word in ("violin", "shrines", "imperial", "Obsidian"):
        assert knows_word(embedder, word) is True, word
    for word in ("qwzxplk", "wombatlion", "asdkjh"):
        assert knows_word(embedder, word) is False, word
    assert knows_word(UseEmbedder(), "violin") is None  # no tokenizer to ask


@pytest.mark.e2e  # MiniLM's int8 conversion runs in a child process
def test_the_bundled_minilm_runs_its_products_in_int8_converted_once(tmp_path: Path) -> None:
    """Loaded as shipped, its int8 weights become float32 constants; the converted model keeps
    them int8 (a quarter of the size) and gives nearly the same vectors."""
    model, tokenizer = bundled_minilm()
    memlsp.embed.onnx._CONVERTED.clear()  # converted by an earlier test into its own folder
    converted = integer_model(model, tmp_path / "models")
    assert converted.parent == tmp_path / "models" and converted.is_file()
    assert converted.stat().st_size < 0.5 * 4 * model.stat().st_size  # not float32 weights
    started = time.perf_counter()
    assert integer_model(model, tmp_path / "models") == converted  # kept, not converted again
    assert time.perf_counter() - started < 0.5
    texts = [
        "The harbour lantern is lit at dusk by the keeper.",
        "Gradient descent minimises a loss one small step at a time.",
        "Tomatoes ripen faster in a warm greenhouse.",
    ]
    float_vectors = OnnxEmbedder(model, tokenizer, "float").embed_documents(texts)
    int8_vectors = OnnxEmbedder(converted, tokenizer, "int8").embed_documents(texts)
    assert (float_vectors * int8_vectors).sum(axis=1).min() > 0.97
    # Each text stays nearest to its own float vector.
    assert list((int8_vectors @ float_vectors.T).argmax(axis=1)) == [0, 1, 2]


@pytest.mark.e2e  # MiniLM's int8 conversion runs in a child process
def test_the_int8_conversion_runs_in_a_process_of_its_own(tmp_path: Path) -> None:
    """The quantizer and the float graph never enter the process that embeds (their peak was
    ~450 MB and ~150 MB stayed resident)."""
    probe = (
        "import sys; from pathlib import Path; from memlsp.embed.onnx import bundled_minilm,"
        " integer_model; model, _ = bundled_minilm(); out = integer_model(model, Path(sys.argv[1]));"
        " print(out != model, 'onnx' in sys.modules, 'onnxruntime.quantization' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path / "models")],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert done.stdout.split() == ["True", "False", "False"], done.stderr
    assert len(list((tmp_path / "models").glob("*-int8-*.onnx"))) == 1
    assert list((tmp_path / "models").iterdir()) == list((tmp_path / "models").glob("*.onnx"))


@pytest.mark.e2e  # MiniLM's int8 conversion runs in a child process
def test_a_model_that_cannot_be_converted_runs_as_it_is(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    broken = tmp_path / "model.onnx"
    broken.write_bytes(b"not an onnx graph")
    memlsp.embed.onnx._CONVERTED.clear()
    with caplog.at_level(logging.WARNING, logger="memlsp.embed.onnx"):
        assert integer_model(broken, tmp_path / "models") == broken
    assert "int8 conversion of model.onnx failed" in caplog.text
    assert list((tmp_path / "models").iterdir()) == []  # nothing half written
