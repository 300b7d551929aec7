"""Implementation profiles and MPIConfig (3.6, 3.6.1 and the notes on real MPI behaviour)."""

from __future__ import annotations

import dataclasses

import pytest
from helpers.paths import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

import mpisim as ms
from mpisim.buffered.allocators import make_allocator
from mpisim.profiles.library import PROFILES, MPIConfig, Profile, get_profile


def test_the_built_in_profiles_and_their_overheads() -> None:
    """MPI_BSEND_OVERHEAD: the standard fixes no value (the standard profile takes MPICH's
    96); MPICH (64-bit) 96; Open MPI 128. ``mpich``/``openmpi`` are the old names of the
    4.x profiles: the same settings, reported under the name given."""
    assert list(PROFILES)[:3] == ["standard", "mpich-4.0", "openmpi-4.1"]
    assert [PROFILES[n].bsend_overhead for n in list(PROFILES)[:3]] == [96, 96, 128]
    assert all(p.name == n and p.description for n, p in PROFILES.items())
    for alias, name in (("mpich", "mpich-4.0"), ("openmpi", "openmpi-4.1")):
        assert get_profile(alias) == dataclasses.replace(PROFILES[name], name=alias)
        assert get_profile(alias).collectives_family == alias


def test_standard_profile_is_the_3_6_1_model() -> None:
    """3.6.1: circular queue, entry = pack_size + MPI_BSEND_OVERHEAD, no implementation quirks."""
    p = get_profile("standard")
    assert (p.allocator, p.sizing, p.alignment) == ("circular", "standard", 1)
    assert (p.attach_min, p.bsend_direct_limit, p.zero_bsend_unattached_ok) == (0, None, False)
    assert not p.detach_unattached_error and p.ibsend_completes_at_once
    assert p.eager_limit == 64 * 1024


def test_mpich_profile_follows_mpich_4() -> None:
    """MPICH: first fit, header sizing, attach below 96 B refused, eager up to 8255 B,
    an Ibsend request complete when it returns, detach without a buffer succeeds."""
    p = get_profile("mpich")
    assert (p.allocator, p.sizing, p.attach_min, p.eager_limit) == ("first-fit", "mpich", 96, 8255)
    assert p.ibsend_completes_at_once and not p.detach_unattached_error
    assert p.attach_twice_error_class == "MPI_ERR_BUFFER"


def test_openmpi_profile_follows_open_mpi_4_1() -> None:
    """Open MPI (ob1, shared memory): bsends up to the 4040 B eager limit bypass the buffer,
    a 0-byte bsend needs none, detach without a buffer is an error, MPI_Ibsend's request is
    complete when it returns (facts, edge cases), attaching 0 bytes is refused."""
    p = get_profile("openmpi")
    assert (p.allocator, p.sizing, p.eager_limit, p.bsend_direct_limit) == (
        "first-fit", "openmpi", 4040, 4040)
    assert p.zero_bsend_unattached_ok and p.detach_unattached_error
    assert p.ibsend_completes_at_once and p.attach_min == 1


def test_profiles_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        PROFILES["standard"].bsend_overhead = 1  # type: ignore[misc]


def test_unknown_profile_lists_the_valid_names() -> None:
    with pytest.raises(ValueError, match=r"unknown profile 'lam' \(valid: standard, mpich-4.0, "
                                         r"openmpi-4.1, .*mpich, openmpi, or a profile file"):
        get_profile("lam")


@pytest.mark.parametrize(("name", "capacity", "k"), [
    ("mpich", 18184, 2), ("mpich", 18183, 1), ("openmpi", 18040, 2), ("openmpi", 18039, 1),
    ("standard", 18192, 2), ("standard", 18191, 1)])
def test_each_profile_charges_entries_as_its_implementation(name, capacity, k) -> None:
    """Two bsends of 9000 B: MPICH needs 18184 B, Open MPI 18040 B, the standard's model
    with overhead 96 needs 18192 B."""
    cfg = MPIConfig(profile=name).resolve()
    a = make_allocator(cfg.allocator, capacity, overhead=cfg.bsend_overhead,
                       alignment=cfg.alignment, sizing=cfg.sizing)
    assert sum(a.allocate(9000)[0] is not None for _ in range(3)) == k


# -- MPIConfig ----------------------------------------------------------------------------
def test_mpiconfig_is_public_and_defaults_to_the_standard_profile() -> None:
    cfg = ms.MPIConfig().resolve()
    assert cfg.profile is PROFILES["standard"]
    assert (cfg.bsend_overhead, cfg.allocator, cfg.sizing, cfg.alignment) == (
        96, "circular", "standard", 1)
    assert (cfg.copy_bandwidth, cfg.force_ssend) == (None, False)


def test_unset_values_come_from_the_profile_and_set_ones_win() -> None:
    cfg = MPIConfig(profile="openmpi").resolve()
    assert (cfg.bsend_overhead, cfg.allocator, cfg.sizing) == (128, "first-fit", "openmpi")
    cfg = MPIConfig(profile="openmpi", bsend_overhead=512, allocator="circular",
                    alignment=8, force_ssend=True).resolve()
    assert (cfg.bsend_overhead, cfg.allocator, cfg.sizing, cfg.alignment, cfg.force_ssend) == (
        512, "circular", "openmpi", 8, True)


def test_unit_strings_are_parsed() -> None:
    cfg = MPIConfig(bsend_overhead="1 KiB", alignment="16 B", copy_bandwidth="10 GB/s").resolve()
    assert (cfg.bsend_overhead, cfg.alignment, cfg.copy_bandwidth) == (1024, 16, 1e10)


@pytest.mark.parametrize(("settings_", "message"), [
    ({"profile": "lam"}, "mpi.profile: 'lam' is not one of standard, mpich"),
    ({"allocator": "best-fit"}, "mpi.allocator: 'best-fit' is not one of circular, first-fit"),
    ({"alignment": 3}, "mpi.alignment: expected a power of two >= 1, got 3"),
    ({"alignment": 0}, "mpi.alignment: expected a power of two >= 1, got 0"),
    ({"bsend_overhead": -1}, "mpi.bsend_overhead: size must be non-negative"),
    ({"bsend_overhead": "lots"}, "mpi.bsend_overhead: cannot read 'lots'"),
    ({"copy_bandwidth": "fast"}, "mpi.copy_bandwidth: cannot read 'fast'"),
    ({"copy_bandwidth": 0}, "mpi.copy_bandwidth: bandwidth must be positive"),
    ({"force_ssend": "yes"}, "mpi.force_ssend: expected true or false"),
])
def test_bad_values_name_their_key_on_one_line(settings_, message) -> None:
    with pytest.raises(ValueError) as info:
        MPIConfig(**settings_).resolve()
    text = str(info.value)
    assert text.startswith(message) and "\n" not in text


def test_from_dict_refuses_unknown_keys_naming_the_closest_or_the_valid_ones() -> None:
    with pytest.raises(ValueError, match=r"^mpi\.overhead: unknown key \(did you mean "
                                         r"'bsend_overhead'\?\)$"):
        MPIConfig.from_dict({"overhead": 96})
    with pytest.raises(ValueError, match=r"^mpi\.zzz: unknown key \(valid: profile, "
                                         r"bsend_overhead, allocator, alignment, "
                                         r"copy_bandwidth, force_ssend, sync_collectives, "
                                         r"collectives, buffer_policy, rma_lock, rma_progress, "
                                         r"rma_lock_progress, io_latency, io_bandwidth, "
                                         r"universe\)$"):
        MPIConfig.from_dict({"zzz": 96})
    with pytest.raises(ValueError, match="mpi: expected a mapping"):
        MPIConfig.from_dict(["profile"])  # type: ignore[arg-type]
    assert MPIConfig.from_dict({"profile": "mpich"}) == MPIConfig(profile="mpich")
    assert MPIConfig.from_dict(MPIConfig(allocator="unbounded").to_dict()).allocator == "unbounded"


def test_a_custom_profile_object_is_accepted() -> None:
    mine = dataclasses.replace(PROFILES["standard"], name="abi", bsend_overhead=512)
    cfg = MPIConfig(profile=mine).resolve()
    assert cfg.profile is mine and cfg.bsend_overhead == 512
    assert isinstance(mine, Profile)


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=-4, max_value=1 << 20))
def test_alignment_must_be_a_power_of_two(alignment: int) -> None:
    ok = alignment >= 1 and alignment & (alignment - 1) == 0
    if ok:
        assert MPIConfig(alignment=alignment).resolve().alignment == alignment
    else:
        with pytest.raises(ValueError, match=r"^mpi\.alignment: "):
            MPIConfig(alignment=alignment).resolve()


# -- the profiles in a running simulation -------------------------------------------------
def two_rendezvous_bsends(mpi, attach=0, m=9000):
    """Rank 0 bsends two messages above every profile's eager limit to a late receiver."""
    if mpi.rank == 0:
        yield mpi.buffer_attach(attach)
        yield mpi.bsend(count=m, dest=1)
        yield mpi.bsend(count=m, dest=1)
        yield mpi.buffer_detach()
    else:
        yield mpi.compute(1e-3)
        for _ in range(2):
            yield mpi.recv(count=m, source=0)


@pytest.mark.parametrize(("profile", "enough"), [("mpich", 18184), ("openmpi", 18040),
                                                 ("standard", 18192)])
def test_a_run_needs_exactly_the_implementations_buffer(profile, enough) -> None:
    """Entries stay until the late receiver matches them, so both must fit at once."""
    net = {"eager_limit": 4000}
    ok = ms.run(two_rendezvous_bsends, ranks=2, network=net, mpi={"profile": profile},
                params={"attach": enough})
    short = ms.run(two_rendezvous_bsends, ranks=2, network=net, mpi={"profile": profile},
                   params={"attach": enough - 1})
    assert ok.outcome is ms.Outcome.COMPLETED
    assert (short.outcome, short.error.error_class) == (ms.Outcome.ERROR, "MPI_ERR_BUFFER")


def test_mpich_refuses_an_attach_below_its_overhead() -> None:
    """MPICH: attaching fewer than 96 bytes (0 included) is MPI_ERR_BUFFER."""
    def prog(mpi, size):
        try:
            yield mpi.buffer_attach(size)
        except ms.MPIError as e:
            return e.error_class
        return "ok"

    for size, want in ((95, "MPI_ERR_BUFFER"), (0, "MPI_ERR_BUFFER"), (96, "ok")):
        r = ms.run(prog, ranks=1, mpi={"profile": "mpich"}, params={"size": size})
        assert r.returned == [want]
    assert ms.run(prog, ranks=1, params={"size": 0}).returned == ["ok"]


def test_openmpi_small_bsends_need_no_buffer() -> None:
    """Open MPI: bsends up to the eager limit go straight to the transport, even with no
    buffer attached; the standard's model (3.6: no buffer = zero-size buffer) refuses them."""
    def prog(mpi):
        if mpi.rank == 0:
            try:
                yield mpi.bsend(count=100, dest=1)
            except ms.MPIError as e:
                return e.error_class
            return "ok"
        yield mpi.recv(count=100, source=0)

    assert ms.run(prog, ranks=2, mpi={"profile": "openmpi"}).returned[0] == "ok"
    assert ms.run(prog, ranks=2).returned[0] == "MPI_ERR_BUFFER"


def test_every_profile_setting_has_its_source_and_the_docs_show_the_table() -> None:
    """Profiles are data that can be read: each setting of each profile names the text of
    the standard or the measurement it comes from, and docs/reference/profiles.md shows
    exactly the table that ``mpisim profiles --markdown`` prints."""

    from mpisim.profiles.evidence import EVIDENCE, SETTINGS, table

    for name in PROFILES:
        assert set(EVIDENCE[name]) == set(SETTINGS), name
        assert all(text.strip() for text in EVIDENCE[name].values())
    page = (ROOT / "docs" / "reference" / "profiles.md").read_text()
    block = page.split("<!-- profiles: generated by `mpisim profiles --markdown` -->\n")[1]
    assert block.split("\n<!-- /profiles -->")[0] == table()
