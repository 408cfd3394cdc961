"""kscope kernel build, without building: patch order, the cache key, the config check,
patching a tiny fake tree (including a patch that does not apply), finding a cached build."""

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from kscope import cli
from kscope.kernel import build, config, patches, source
from kscope.vm import capture_vm

needs_patch = pytest.mark.skipif(shutil.which("patch") is None, reason="GNU patch is not installed")


def _patch_text(path: str, old: str, new: str, line: int = 1) -> str:
    return textwrap.dedent(f"""\
        From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
        Subject: [PATCH] test

        ---
        --- a/{path}
        +++ b/{path}
        @@ -{line},1 +{line},1 @@
        -{old}
        +{new}
        """)


@pytest.fixture()
def patch_root(tmp_path: Path) -> Path:
    root = tmp_path / "kernel-patches"
    for folder, files in {"mm_cid-7e019dc": ["0001-sched-behaviour.patch", "0002-sched-trace-point.patch"],
                          "cpupri-per-node": ["0001-cpupri.patch", "0002-cpupri-trace-tp.patch"]}.items():
        d = root / folder / "6.12"
        d.mkdir(parents=True)
        for i, name in enumerate(files):
            (d / name).write_text(f"{folder} {i}\n")
    return root


# --- which patches, in which order -------------------------------------------------------------

def test_sets_apply_in_the_fixed_order_whatever_the_command_line_order(patch_root: Path) -> None:
    a = patches.resolve(["cpupri", "trace", "mm_cid"], patch_root)
    b = patches.resolve(["mm_cid", "cpupri", "trace"], patch_root)
    assert [p.path.name for p in a] == [p.path.name for p in b] == [
        "0001-sched-behaviour.patch", "0002-sched-trace-point.patch", "0001-cpupri.patch", "0002-cpupri-trace-tp.patch"]
    assert [p.set for p in a] == ["mm_cid", "mm_cid", "cpupri", "cpupri"]
    assert patches.selection_label(["trace", "cpupri", "mm_cid"]) == "mm_cid,cpupri,trace"
    assert patches.selection_label([]) == "none"


def test_without_trace_only_the_behaviour_patches(patch_root: Path) -> None:
    names = [p.path.name for p in patches.resolve(["mm_cid", "cpupri"], patch_root)]
    assert names == ["0001-sched-behaviour.patch", "0001-cpupri.patch"]
    assert patches.resolve([], patch_root) == []


def test_unknown_or_empty_sets_are_named(patch_root: Path) -> None:
    with pytest.raises(patches.PatchSelectionError, match="unknown patch set 'sheaves'"):
        patches.resolve(["mm_cid", "sheaves"], patch_root)
    with pytest.raises(patches.PatchSelectionError, match="belong to a set"):
        patches.resolve(["trace"], patch_root)
    shutil.rmtree(patch_root / "cpupri-per-node")
    with pytest.raises(patches.PatchSelectionError, match=r"cpupri: no patch files in .*cpupri-per-node/6.12"):
        patches.resolve(["cpupri"], patch_root)
    assert patches.parse_names(" mm_cid, ,trace,mm_cid") == ["mm_cid", "trace"]


# --- the cache key -----------------------------------------------------------------------------

def test_cache_key_changes_with_a_patch_the_version_and_the_config(patch_root: Path) -> None:
    chosen = patches.resolve(["mm_cid", "trace"], patch_root)
    key = build.cache_key("6.12.117-1", chosen, "c1")
    assert key == build.cache_key("6.12.117-1", patches.resolve(["trace", "mm_cid"], patch_root), "c1")
    (patch_root / "mm_cid-7e019dc/6.12/0002-sched-trace-point.patch").write_text("edited\n")
    assert build.cache_key("6.12.117-1", patches.resolve(["mm_cid", "trace"], patch_root), "c1") != key
    assert build.cache_key("6.12.118-1", chosen, "c1") != key
    assert build.cache_key("6.12.117-1", chosen, "c2") != key
    assert build.cache_key("6.12.117-1", chosen[:1], "c1") != key


# --- the config fragment -----------------------------------------------------------------------

def test_config_fragment_parsing_and_the_survival_check(tmp_path: Path) -> None:
    frag = tmp_path / "t.config"
    frag.write_text("# comment\nCONFIG_SMP=y\nCONFIG_NR_CPUS=64\n# CONFIG_MODULES is not set\n\n")
    wanted = config.parse_fragment(frag)
    assert wanted == {"CONFIG_SMP": "y", "CONFIG_NR_CPUS": "64", "CONFIG_MODULES": "n"}
    good = "CONFIG_SMP=y\nCONFIG_NR_CPUS=64\n# CONFIG_MODULES is not set\n"
    assert config.missing(wanted, good) == []
    bad = "CONFIG_NR_CPUS=8\nCONFIG_MODULES=y\n"
    assert config.missing(wanted, bad) == ["CONFIG_SMP=y (got not set)", "CONFIG_NR_CPUS=64 (got 8)",
                                           "CONFIG_MODULES=n (got y)"]
    frag.write_text("CONFIG_SMP=y\nSMP on\n")
    with pytest.raises(config.ConfigError, match=r"t.config:2: not a CONFIG_X=value line"):
        config.parse_fragment(frag)
    with pytest.raises(config.ConfigError, match="no .*nope.config"):
        config.fragment_path("nope", tmp_path)


def test_the_small_fragment_asks_for_what_capture_vm_needs() -> None:
    wanted = config.parse_fragment(config.fragment_path("small"))
    for key in ("CONFIG_SMP", "CONFIG_NUMA", "CONFIG_ACPI", "CONFIG_SERIAL_8250_CONSOLE", "CONFIG_BLK_DEV_INITRD",
                "CONFIG_RD_GZIP", "CONFIG_BINFMT_SCRIPT", "CONFIG_DEVTMPFS", "CONFIG_RSEQ", "CONFIG_SCHED_MM_CID",
                "CONFIG_FUTEX", "CONFIG_TRACING", "CONFIG_EVENT_TRACING", "CONFIG_HZ_250"):
        assert wanted.get(key) == "y", key
    assert int(wanted["CONFIG_NR_CPUS"]) >= 64


# --- applying patches to a (tiny, fake) tree ---------------------------------------------------

@needs_patch
def test_apply_switch_and_reverse_on_a_fake_tree(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    tree = Path("src")  # a relative tree: patch runs inside it, so every path given to it must be absolute
    (tree / "kernel").mkdir(parents=True)
    (tree / "kernel" / "a.c").write_text("int a = 1;\n")
    p1 = tmp_path / "0001-one.patch"
    p1.write_text(_patch_text("kernel/a.c", "int a = 1;", "int a = 2;"))
    p2 = tmp_path / "0002-two.patch"
    p2.write_text(_patch_text("kernel/a.c", "int a = 2;", "int a = 3;"))
    one = patches.Patch("mm_cid", p1, "1" * 64)
    two = patches.Patch("mm_cid", p2, "2" * 64)
    log: list[str] = []
    assert source.apply(tree, [one, two], "6.12.test", log)
    assert (tree / "kernel/a.c").read_text() == "int a = 3;\n"
    assert not source.apply(tree, [one, two], "6.12.test", log)  # already so: nothing to do
    assert source.apply(tree, [one], "6.12.test", log)  # switch: both out, one back in
    assert (tree / "kernel/a.c").read_text() == "int a = 2;\n"
    assert source.apply(tree, [], "6.12.test", log)
    assert (tree / "kernel/a.c").read_text() == "int a = 1;\n" and source.applied(tree) == []


@needs_patch
def test_a_common_leading_run_of_patches_stays_applied(tmp_path: Path) -> None:
    tree = tmp_path / "src"
    (tree / "kernel").mkdir(parents=True)
    (tree / "kernel" / "a.c").write_text("int a = 1;\n")
    (tree / "kernel" / "b.c").write_text("int b = 1;\n")
    p1 = tmp_path / "0001-a.patch"
    p1.write_text(_patch_text("kernel/a.c", "int a = 1;", "int a = 2;"))
    p2 = tmp_path / "0001-b.patch"
    p2.write_text(_patch_text("kernel/b.c", "int b = 1;", "int b = 2;"))
    one, two = patches.Patch("mm_cid", p1, "1" * 64), patches.Patch("cpupri", p2, "2" * 64)
    source.apply(tree, [one], "6.12.test", [])
    before = (tree / "kernel/a.c").stat().st_mtime_ns
    log: list[str] = []
    assert source.apply(tree, [one, two], "6.12.test", log)
    assert log == ["patch -p1 < " + two.label()]  # nothing reversed: a.c is not touched (no rebuild)
    assert (tree / "kernel/a.c").stat().st_mtime_ns == before
    assert (tree / "kernel/b.c").read_text() == "int b = 2;\n"
    assert [a.sha256 for a in source.applied(tree)] == ["1" * 64, "2" * 64]


@needs_patch
def test_a_patch_that_does_not_apply_names_the_file_and_the_hunk_and_leaves_the_tree_clean(tmp_path: Path) -> None:
    tree = tmp_path / "src"
    (tree / "kernel").mkdir(parents=True)
    (tree / "kernel" / "a.c").write_text("int a = 1;\n")
    (tree / "kernel" / "b.c").write_text("int b = 1;\n")
    good = tmp_path / "0001-good.patch"
    good.write_text(_patch_text("kernel/a.c", "int a = 1;", "int a = 2;"))
    bad = tmp_path / "0002-bad.patch"
    bad.write_text(_patch_text("kernel/b.c", "int b = 7;", "int b = 8;"))
    chosen = [patches.Patch("mm_cid", good, "a" * 64), patches.Patch("mm_cid", bad, "b" * 64)]
    with pytest.raises(source.PatchApplyError) as err:
        source.apply(tree, chosen, "6.12.test", [])
    text = str(err.value)
    assert "0002-bad.patch does not apply to linux-source-6.12 6.12.test" in text
    assert "kernel/b.c hunk #1 FAILED at line 1" in text
    assert (tree / "kernel/a.c").read_text() == "int a = 1;\n"  # the good one was taken back out
    assert (tree / "kernel/b.c").read_text() == "int b = 1;\n" and source.applied(tree) == []


def test_hunk_failures_reads_gnu_patch_output() -> None:
    out = ("checking file kernel/sched/sched.h\nHunk #2 FAILED at 3480.\nHunk #5 FAILED at 3600.\n"
           "checking file kernel/sched/core.c\ncan't find file to patch at input line 90\n")
    assert source.hunk_failures(out) == ["kernel/sched/sched.h hunk #2 FAILED at line 3480",
                                         "kernel/sched/sched.h hunk #5 FAILED at line 3600",
                                         "kernel/sched/core.c: can't find file to patch at input line 90"]


# --- the cache, and capture-vm --kernel built --------------------------------------------------

def _fake_build(cache: Path, key: str, label: str, when: str) -> Path:
    d = cache / key
    d.mkdir(parents=True)
    (d / "bzImage").write_bytes(b"MZ fake")
    (d / "build.json").write_text(json.dumps({"key": key, "patches": label, "built_at": when, "config": "small",
                                              "source_version": "6.12.117-1~deb12u1"}))
    return d / "bzImage"


def test_find_built_takes_the_newest_with_exactly_those_patches(tmp_path: Path) -> None:
    _fake_build(tmp_path, "aaa", "mm_cid,trace", "2026-01-01T00:00:00Z")
    newer = _fake_build(tmp_path, "bbb", "mm_cid,trace", "2026-01-02T00:00:00Z")
    stock = _fake_build(tmp_path, "ccc", "none", "2026-01-03T00:00:00Z")
    assert build.find_built(["trace", "mm_cid"], tmp_path)["bzImage"] == str(newer)
    assert build.find_built(None, tmp_path)["bzImage"] == str(stock)
    with pytest.raises(build.NoBuiltKernel, match=r"kernel build --patches mm_cid,cpupri"):
        build.find_built(["cpupri", "mm_cid"], tmp_path)


def test_capture_vm_kernel_built_without_a_build_says_how_to_make_one(tmp_path: Path, monkeypatch,
                                                                      capsys) -> None:
    monkeypatch.setenv("KSCOPE_KERNEL_CACHE", str(tmp_path / "empty"))
    monkeypatch.setattr(capture_vm.deps, "ensure_host_tools", lambda install, log: Path("/bin/busybox"))
    code = cli.main(["capture-vm", "--kernel", "built", "--patches", "mm_cid,trace", "--workload", "intermittent",
                     "-o", str(tmp_path / "t.txt")])
    err = capsys.readouterr().err
    assert code == 2
    assert "--kernel built: no kernel built with --patches mm_cid,trace" in err
    assert "scripts/kscope kernel build --patches mm_cid,trace" in err


def test_kernel_build_cli_rejects_an_unknown_set_before_touching_apt(capsys) -> None:
    assert cli.main(["kernel", "build", "--patches", "mm_cid,bogus", "--no-install"]) == 2
    assert "unknown patch set 'bogus'" in capsys.readouterr().err


def test_capture_vm_boots_the_built_image_and_writes_its_patches_and_cmdline(tmp_path: Path, monkeypatch,
                                                                            capsys) -> None:
    from kscope.vm import deps, guest, qemu, workloads

    image = _fake_build(tmp_path / "cache", "k1", "mm_cid,trace", "2026-01-01T00:00:00Z")
    monkeypatch.setenv("KSCOPE_KERNEL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(deps, "ensure_host_tools", lambda install, log: Path("/bin/busybox"))
    monkeypatch.setattr(workloads, "build", lambda w, out: tmp_path / "bin")
    monkeypatch.setattr(guest, "build_initramfs", lambda *a: tmp_path / "initrd.gz")
    booted: list[list[str]] = []

    def run(argv: list[str], *a: object) -> qemu.Boot:
        booted.append(argv)
        data = Path(next(x for x in argv if x.startswith("file:"))[5:])
        sections = {"uname": "6.12.117", "events": "rseq:rseq_update", "workload": "ok\nexit=0",
                    "topology": "", "trace": "# tracer: nop\n"}
        data.write_text("".join(f"@@KSCOPE-BEGIN {k}@@\n{v}\n@@KSCOPE-END {k}@@\n" for k, v in sections.items()))
        return qemu.Boot("tcg", booted=True, finished=True, returncode=0, boot_s=1.0, total_s=2.0, console=b"")

    monkeypatch.setattr(qemu, "run", run)
    out = tmp_path / "t.txt"
    code = cli.main(["capture-vm", "--kernel", "built", "--patches", "trace,mm_cid", "--workload", "intermittent",
                     "--accel", "tcg", "--smp", "2", "--numa", "1", "--cmdline", "kscope_mm_cid=recent",
                     "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    argv = booted[0]
    assert argv[argv.index("-kernel") + 1] == str(image)
    assert "kscope_mm_cid=recent" in argv[argv.index("-append") + 1]
    head = out.read_text()
    for line in ("# kscope: kernel_image=built", "# kscope: patches=mm_cid,trace", "# kscope: build=k1"):
        assert line + "\n" in head
    assert "kscope_mm_cid=recent" in next(x for x in head.splitlines() if x.startswith("# kscope: cmdline="))
