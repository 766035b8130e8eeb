"""benchmarks/first_answer.py reads each recording pass off the command's display: the first line's
estimate (entries at their floor, and at the rule's widest) and the time the pass's bar last showed."""

from __future__ import annotations


def test_each_pass_is_its_estimate_and_the_time_its_bar_last_showed(load_script):
    fa = load_script("benchmarks/first_answer.py", "first_answer_bench")
    text = (
        "recording 11 scenarios into /tmp/b (each until ...): up to 7 aim solves for 11 scenarios and about 4,200 "
        "throws to start, ~0:52 on local x2 (up to 11,200 throws, ~1:20, if each needs the rule's widest)\n"
        "  0%|          | 0/4200 throws [00:00]\r0/11 scenarios 50%| | 2100/4200 throws [00:31, hero-d8, ~0:20 left]"
        "\r11/11 scenarios 100%| | 9000/9000 throws [01:08, hero-d8 lava casual, ~0:00 left]\n"
        "recording 1 scenario into /tmp/b (400 throws a scenario): up to 1 aim solve and about 400 throws to start, "
        "~0:05 on local x2\n1/1 scenarios 100%| | 400/400 throws [1:02:05, x]\n"
    )
    assert fa.recording_passes(text) == [
        {"scenarios": 11, "estimate_s": 52, "widest_s": 80, "took_s": 68},
        {"scenarios": 1, "estimate_s": 5, "widest_s": None, "took_s": 3725},
    ]
    assert fa.recording_passes("no recording here") == []
