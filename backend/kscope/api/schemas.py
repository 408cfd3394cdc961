"""Pydantic schemas of the API: the contract the frontend's client is generated from."""

from typing import Any, Literal

from pydantic import BaseModel, Field

# The contract names no algorithm model: its examples say the form of a value, not a
# registered model's (the frontend's types are generated from this text, and generic code
# there names no model either; backend/tests/test_models_layering.py).


class Health(BaseModel):
    """Liveness and the versions of the backend and the C core it loaded."""

    status: str = Field(examples=["ok"])
    version: str = Field(description="kscope backend version")
    core_version: str = Field(description="version reported by the C core (ks_version)")


class PresetPublic(BaseModel):
    """A built-in topology preset."""

    name: str = Field(examples=["epyc-9654-2s"])
    description: str


class CacheKib(BaseModel):
    """Cache sizes in KiB: L1d and L2 per core, L3 per LLC instance."""

    l1d: int
    l2: int
    l3: int


class CpuPublic(BaseModel):
    """One logical CPU and where it sits; all ids are dense and 0-based."""

    cpu: int = Field(description="Linux CPU number")
    core: int = Field(description="physical core id, machine-wide")
    llc: int = Field(description="last-level cache (L3) instance id, machine-wide")
    node: int = Field(description="NUMA node id")
    socket: int = Field(description="package id")
    smt_index: int = Field(description="0 for a core's first hardware thread, 1 for its sibling, ...")


class TopologyPublic(BaseModel):
    """A machine topology built by the C core from a preset."""

    name: str
    description: str
    cpus: int
    cores: int
    llcs: int
    nodes: int
    sockets: int
    threads_per_core: int
    cache_kib: CacheKib
    cpu_list: list[CpuPublic] = Field(description="one record per CPU, in CPU order")


class ParseProblem(BaseModel):
    """Where the first malformed line of an input was, and what was wrong."""

    line: int
    column: int = 0
    field: str = ""
    message: str = ""


class TraceProvenance(BaseModel):
    """Where the events come from: a real kernel (measured) or kscope's simulator (modelled)."""

    kind: Literal["measured", "modelled"] = Field(
        description="modelled: the header says `# kscope: source=modelled` (kscope sim --export)")
    workload: str | None = Field(default=None, description="modelled: the simulated workload's name")
    seed: str | None = Field(default=None, description="modelled: the simulator's RNG seed")
    algo: str | None = Field(default=None, description="modelled: the algorithm model the simulator ran, "
                                  "as <model>:<variant>, or none")
    preset: str | None = Field(default=None, description="modelled: the machine (topology preset or file)")
    generator: str | None = None


class TracePublic(BaseModel):
    """A stored trace: what ingest found in it."""

    id: str = Field(examples=["3f2a9c0d1e4b5a67"])
    name: str = Field(description="the uploaded file's name")
    format: str = Field(examples=["ftrace"], description="detected from the content, not the name")
    created_at: str
    events: int
    cpus: int = Field(description="CPUs that have events")
    t_first_ns: int = Field(description="first event's time (the trace's own clock)")
    t_last_ns: int
    tasks: int = Field(description="distinct thread ids seen")
    kernel: str = Field(description="kernel release, when the trace records it")
    malformed_lines: int = Field(description="lines that did not read (counted, not fatal)")
    bytes_in: int
    bytes_stored: int
    by_type: dict[str, int] = Field(default_factory=dict, description="events per tracepoint name")
    first_error: ParseProblem | None = None
    provenance: TraceProvenance = Field(default_factory=lambda: TraceProvenance(kind="measured"))


class TraceCreated(TracePublic):
    """A trace just ingested, with the owner token to send back as X-Kscope-Token."""

    token: str


class IngestAccepted(BaseModel):
    """An upload received and being ingested in the background (follow /progress)."""

    id: str
    token: str
    progress_url: str


class IngestProgress(BaseModel):
    """One progress report of an ingest."""

    trace_id: str
    name: str
    phase: str = Field(description="upload, decompress, decode, summaries, done or error")
    bytes_done: int
    bytes_total: int
    fraction: float | None = None
    events: int
    error: str | None = None


class OccupancySummary(BaseModel):
    """Per-CPU busy fraction per time bucket over [t0_ns, t1_ns), from the stored summaries."""

    trace_id: str
    t0_ns: int
    t1_ns: int
    buckets: int
    bucket_ns: float
    cpus: list[int]
    occupancy: list[list[float]] = Field(description="one row per CPU (in `cpus` order), 0..1 per bucket")


class SqlRequest(BaseModel):
    """One read-only SELECT over the trace's `events` view."""

    sql: str = Field(examples=["SELECT type, count(*) FROM events GROUP BY 1"])


class SqlResult(BaseModel):
    columns: list[str]
    rows: list[list[Any]]
    truncated: bool


class RoomCreate(BaseModel):
    """A room to open for a lesson."""

    lesson: str = Field(description="lesson id: the <id> of a shipped frontend/src/lessons/<model>/<id>.lesson.json "
                                    "(a-z, 0-9, _ and -, at most 64 characters)")


class RoomPublic(BaseModel):
    """What anyone with the code may know about a room."""

    code: str = Field(examples=["XK4Q7P"], description="6 characters, no look-alike letters or digits")
    lesson: str
    expires_at: int = Field(description="ms since the Unix epoch; pushed back by presenter activity")
    followers: int = Field(description="followers connected now, over all backend processes")


class RoomCreated(BaseModel):
    """A new room; `presenter_token` is shown only here (the server keeps its SHA-256)."""

    code: str = Field(examples=["XK4Q7P"])
    presenter_token: str
    join_url: str = Field(description="the follower page of the room, on the host the request came to")
    expires_at: int = Field(description="ms since the Unix epoch")


class ShareCreated(BaseModel):
    """A trace's new read-only share token, shown only here (the server keeps its SHA-256).

    Anyone holding it may read the trace (X-Kscope-Share header, or `share=` in a page link),
    never change or delete it. It replaces the trace's previous share token."""

    trace_id: str
    share: str = Field(description="the read-only token")
    created_at: str
    url: str = Field(description="the trace's page with the token, e.g. /traces?trace=ID&share=TOKEN")


class ShareState(BaseModel):
    """Whether a trace has a working share token now (never the token itself)."""

    trace_id: str
    shared: bool
    created_at: str | None = None
