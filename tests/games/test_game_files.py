"""Bad deck and game files: one line naming file, field and problem, exit status 2, nothing written."""

from __future__ import annotations

import os

import pytest

from sim.cli.main import main


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize("text, field", [
    ('kind = "deck"\nname = "x"\n[[dungeon]]\nname = "a"\nshop_icons = 9\n', "dungeon.0.shop_icons"),
    ('kind = "deck"\nname = "x"\n[[monsters]]\nmonster = "no-such-monster"\n', "monsters.0.monster"),
    ('kind = "deck"\nname = "x"\n[[equipment]]\nname = "a"\nkind = "relic"\nprice = 2\n', "equipment.0.kind"),
    ('kind = "deck"\nname = "x"\n[[monsters]]\nname = "m"\nlife = 5\nmiss_damage = 1\nlevel = 2\n'
     'special_dice = ["no-such-die"]\n', "monsters.0.special_dice.0"),
])
def test_bad_deck_file_exits_2_naming_the_field(tmp_path, capsys, text, field):
    p = write(tmp_path, "deck.toml", text)
    assert main(["check", str(p)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(p) in err[0] and field in err[0]


def test_bad_game_file_exits_2_and_writes_nothing(tmp_path, capsys, monkeypatch):
    bank = tmp_path / "bank"
    p = write(tmp_path, "game.toml", 'kind = "game"\nname = "g"\ndecks = ["base"]\n[party]\nsize = 5\n'
              '[[party.heroes]]\nname = "A"\n[[party.heroes]]\nname = "B"\n')
    monkeypatch.chdir(tmp_path)
    assert main(["game", str(p), "--bank", str(bank)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "party.size" in err[0] and str(p) in err[0]
    assert not bank.exists() and sorted(os.listdir(tmp_path)) == ["game.toml"]


def test_unknown_deck_in_a_game_names_the_game_field(tmp_path, capsys):
    p = write(tmp_path, "game.toml", 'kind = "game"\nname = "g"\ndecks = ["nope"]\n[party]\n'
              '[[party.heroes]]\nname = "A"\n[[party.heroes]]\nname = "B"\n')
    assert main(["check", str(p)]) == 2
    err = capsys.readouterr().err.strip()
    assert "decks.0" in err and "unknown deck 'nope'" in err


def test_every_shipped_deck_and_game_checks(capsys):
    from sim.specs.datafiles import builtin_dir, builtin_names

    for kind in ("deck", "game"):
        for n in builtin_names(kind):
            assert main(["check", str(builtin_dir(kind) / f"{n}.toml")]) == 0


def test_bad_game_experiment_names_the_variant(tmp_path, capsys):
    p = write(tmp_path, "exp.toml", 'name = "x"\ngame = "base"\nseed = 1\ngames = 10\n'
              '[[variants]]\nname = "big"\nset = { "party.size" = 7 }\n')
    assert main(["check", str(p)]) == 2
    err = capsys.readouterr().err.strip()
    assert "variants.0.set" in err and "big" in err and "party.size" in err
    from sim.specs.datafiles import builtin_dir

    assert main(["check", str(builtin_dir("experiment") / "game-difficulty.toml")]) == 0
