"""The ladder of game policies (sim/games/policy.py, sim/games/strong.py): each rung replays per seed,
`strong` only makes legal choices and replays the round exactly from its checkpoint, a position whose
right choice is known (the last Shop before the Final Boss) is decided right, bad names exit 2.
Throws come from a synthetic bank (tests/games/synthetic_bank.py): what is tested is the policies."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sim.cli.main import main
from sim.errors import SpecError
from sim.games.engine import Game, run_games
from sim.games.ladder import GAME_POLICIES, LADDER, resolve_game_policy
from sim.games.policy import GamePolicy, ShopPlan
from sim.games.spec import load_game
from sim.games.strong import SEARCHED, StrongPlayer, StrongPolicy
from sim.games.throw_bank import BankSource, play

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic_bank import SyntheticBank  # noqa: E402

EASY = {"party.size": 4, "house_rules.monster_life_bonus": -8}  # a game casual parties can win


@pytest.fixture(scope="module")
def bank(tmp_path_factory):
    return SyntheticBank(tmp_path_factory.mktemp("bank"), 200)


def spec_of(**over):
    s = load_game("base", {**EASY, **over})
    s.load_decks()
    return s


def played(bank, spec, games, policy):
    out, _ = play(lambda src: run_games(spec, src, games, policy, log=True), bank, spec.seed)
    return out


@pytest.mark.parametrize("policy", ["first-time", "classic", "default", "strong:rollouts=2,max_rollouts=4"])
def test_each_rung_replays_per_seed_and_differs_between_games(bank, policy):
    spec = spec_of()
    a = played(bank, spec, range(3), policy)
    b = played(bank, spec, range(3), policy)
    assert [r.log for r in a] == [r.log for r in b]
    assert [r.record() for r in a] == [r.record() for r in b]
    assert len({tuple(r.log) for r in a}) == 3
    # a game does not depend on which games are played beside it
    c = played(bank, spec, range(2, 3), policy)
    assert c[0].log == a[2].log


def test_the_ladder_is_one_registry_and_every_rung_resolves():
    assert set(LADDER) <= set(GAME_POLICIES)
    for name in LADDER:
        assert resolve_game_policy(name) is GAME_POLICIES[name]
    p = resolve_game_policy("strong:rollouts=3,decisions=room+shop")
    assert isinstance(p, StrongPolicy) and p.rollouts == 3 and p.decisions == ("room", "shop")
    d = resolve_game_policy("default:shop=heal-first,boss_dice=7")
    assert isinstance(d, GamePolicy) and d.t.shop == "heal-first" and d.t.boss_dice == 7


@pytest.mark.parametrize(
    "name, words",
    [
        ("nope", "unknown game policy 'nope'"),
        ("strong:rollouts=0", "rollouts=0"),
        ("strong:depth=3", "unknown option 'depth'"),
        ("strong:decisions=room+dance", "decisions=room+dance"),
        ("strong:max_rollouts=0", "max_rollouts=0"),
        ("strong:room=maze", "room=maze"),
        ("default:shop=hoard", "shop=hoard"),
        ("default:boss_dice=12", "boss_dice=12"),
        ("default:shop", "expected key=value"),
    ],
)
def test_a_bad_policy_name_or_option_is_one_line_and_exit_2(tmp_path, capsys, name, words):
    with pytest.raises(SpecError, match="policy"):
        resolve_game_policy(name, "command line")
    bank = tmp_path / "bank"
    assert main(["game", "base", "--policy", name, "--bank", str(bank)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0] and "command line" in err[0]
    assert not bank.exists()


class Checked(StrongPolicy):
    """A strong policy whose every answer is checked against the rules where it is given."""

    def for_game(self, game):
        player = StrongPlayer(self, game)
        seen = self.seen

        def check(d):
            answer = player(d)
            seen.append(d.kind)
            g = d.fight
            if d.kind == "room":
                assert answer in range(len(d.options))
            elif d.kind == "shop":
                assert isinstance(answer, ShopPlan)
                cost = sum(d.options[i].price for i, _ in answer.buy) + answer.heal + 2 * answer.white_dice
                assert cost <= g.gold and g.white + answer.white_dice <= 9
                assert len({i for i, _ in answer.buy}) == len(answer.buy)
                for i, who in answer.buy:
                    card = d.options[i]
                    if card.kind != "relic":
                        hero = next(h for h in g.standing if h.name == who)
                        assert g.can_carry(hero, card)
            elif d.kind in ("dice-out", "back-down", "die"):
                assert answer in d.options
            return answer

        check.records = True
        return check


def test_a_bad_policy_of_a_game_tune_is_one_line_and_exit_2(tmp_path, capsys):
    bank = tmp_path / "bank"
    argv = ["tune", "--game", "base", "--set", "house_rules.extra_white_dice=0:7", "--integer", "--target",
            "0.5", "--bank", str(bank), "--policy", "strong:max_rollouts=x"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "max_rollouts=x" in err[0]
    assert not bank.exists()


def test_strong_options_set_its_race_and_its_base():
    p = resolve_game_policy("strong:rollouts=4,max_rollouts=16,heal_below=2")
    assert (p.rollouts, p.max_rollouts, p.base.t.heal_below) == (4, 16, 2)
    assert p.__name__ == "strong:rollouts=4,max_rollouts=16,heal_below=2"
    plain = resolve_game_policy("strong:room=default")  # default's own room rule under strong's other knobs
    assert plain.base.t.room == GamePolicy("default").t.room
    assert resolve_game_policy("strong:rollouts=300").max_rollouts == 300  # never fewer than the first batch


class Scripted(StrongPlayer):
    """A strong player whose rollouts are scripted: choice i wins rollout j when wins[i](j)."""

    def __init__(self, policy, wins):
        self.policy, self.base, self.wins = policy, policy.base, wins
        self.game = type("G", (), {"game": 0, "combats": 0, "log": None})()
        self.searched = self.rollouts_played = 0
        self.played = []

    def _rollout(self, choice, n, j, fight, throws, peek=False):
        self.played.append((choice[1], j))
        return float(self.wins[choice[1]](j)), 0


def race(wins, mine=0, rollouts=8, most=64):
    from sim.fights.policy import Decision

    p = Scripted(StrongPolicy(rollouts=rollouts, max_rollouts=most), wins)
    d = Decision("room", None, None, tuple(range(len(wins))), None)
    pick = p._search(d, list(range(len(wins))), mine)
    return pick, {c: sum(1 for x, _ in p.played if x == c) for c in range(len(wins))}


def test_the_race_keeps_the_base_choice_among_equals_and_spends_only_the_first_batch():
    pick, played = race([lambda j: j % 2, lambda j: j % 2, lambda j: j % 2])
    assert pick == 0 and played == {0: 8, 1: 8, 2: 8}


def test_the_race_stops_as_soon_as_a_choice_is_clearly_ahead():
    pick, played = race([lambda j: False, lambda j: j % 3 == 0, lambda j: True])
    assert pick == 2 and played[2] == 8  # 8 wins against 0 after the first batch: no more rollouts


def test_the_race_doubles_for_a_choice_ahead_but_not_yet_clearly_and_drops_those_behind():
    # choice 1 wins one rollout in 8 more than the base's choice and loses one in 16 (ahead, never
    # clearly: 1.2 standard errors after 64); choice 2 never wins
    def one(j):
        return (j % 4 == 0 and j % 16 != 12) or j % 8 == 1

    pick, played = race([lambda j: j % 4 == 0, one, lambda j: False])
    assert played[2] == 8  # behind after the first batch: out of the race
    assert played[1] == played[0] == 64  # raced to the most
    assert pick == 0
    pick, played = race([lambda j: j % 4 == 0, one, lambda j: False], most=8)
    assert played[1] == 8 and pick == 0


def test_strong_never_makes_an_illegal_choice(bank):
    spec = spec_of()
    pol = Checked(rollouts=2, max_rollouts=4, decisions=SEARCHED)
    pol.seen = []
    out, _ = play(lambda src: run_games(spec, src, range(4), pol), bank, spec.seed)
    assert {"room", "shop", "dice-out"} <= set(pol.seen)
    assert len(out) == 4


def test_a_rollout_that_knows_the_future_replays_the_game_exactly(bank):
    """The rollout machinery is exact: replaying from the round's checkpoint with the game's own
    throws and deck order, and the base policy's choice forced, ends as the real game did."""
    spec = spec_of()
    played(bank, spec, 6, "default")  # records the scenarios
    src = BankSource(bank, spec.seed)

    class Peeker(StrongPlayer):
        def __call__(self, d):
            mine = self.base(d)
            if self.game.checkpoint is not None and d.kind in ("room", "shop", "dice-out"):
                g = self.game
                game_decision = d.kind in ("room", "shop")
                f, t = (g.game * 64 + g.combats, 0) if game_decision else (d.fight.fight, d.fight.throws)
                self.seen.append(self._rollout((d.kind, mine), 0, 0, f, t, peek=True))
            return mine

    compared = 0
    for i in range(6):
        pol = StrongPolicy()
        players = []

        def bind(game, pol=pol, players=players):
            p = Peeker(pol, game)
            p.seen = []
            players.append(p)
            return p

        pol.for_game = bind
        r = Game(spec, src, pol, i, log=False).run()
        ref = run_games(spec, src, range(i, i + 1), pol.base)[0]
        assert (r.outcome, r.shops, r.combats) == (ref.outcome, ref.shops, ref.combats)
        for won, progress in players[0].seen:
            assert (won == 1.0) == ref.won and progress == ref.shops + (ref.boss != "")
            compared += 1
    assert compared > 50


def last_shop_game(bank, policy):
    """The position: two Shops behind, one Shop icon short of the third, 10 gold, 2 white dice, the
    party wounded: the Final Boss comes right after this Shop, where only white dice follow the
    colored ones, so the gold should buy dice, not healing."""

    def run(src):
        g = Game(spec_of(), src, policy, game=5, log=True)
        g.shops, g.icons, g.gold, g.white = 2, 9, 10, 2
        for h in g.heroes:
            h.life = 4
        g.play()
        return g

    g, _ = play(run, bank, 1)
    return g


@pytest.mark.parametrize("policy", ["default", "strong:max_rollouts=8"])
def test_the_last_shop_before_the_boss_buys_white_dice(bank, policy):
    g = last_shop_game(bank, policy)
    lines = [x for x in g.log if x.startswith("SHOP 3") or "white dice for" in x or "healing:" in x]
    shop = lines[0]
    gold = int(shop.split(": ")[1].split(" gold")[0])
    white = int(shop.split(", ")[1].split(" white")[0])
    bought = next(x for x in lines if "white dice for" in x)
    assert f"{min(9, white + gold // 2)} on the Chest" in bought, lines
    if policy.startswith("strong"):
        assert any("strong shop -> " in x for x in g.log)


def test_classic_heals_first_where_default_buys_dice(bank):
    g = last_shop_game(bank, "classic")
    assert any("healing:" in x for x in g.log if x.startswith("  healing"))


def test_an_experiment_variant_picks_its_rung_and_a_bad_one_names_the_variant():
    from sim.games.experiment import parse_game_experiment, resolve_game_experiment

    data = {"name": "ladder", "game": "base", "seed": 1, "games": 2, "policy": "first-time",
            "variants": [{"name": "a"}, {"name": "b", "policy": "strong"}, {"name": "c", "set": {"policy": "classic"}}]}
    exp = resolve_game_experiment(parse_game_experiment(data, "x.toml"), "x.toml")
    assert {k: g.policy for k, g in exp.specs.items()} == {"a": "first-time", "b": "strong", "c": "classic"}
    data["variants"][1]["policy"] = "strong:rollouts=-1"
    with pytest.raises(SpecError, match=r"variants\.1\.policy.*rollouts=-1"):
        resolve_game_experiment(parse_game_experiment(data, "x.toml"), "x.toml")


class Watched(StrongPolicy):
    """A policy (strong, or its base alone with `search=False`) that notes each out-of-dice answer with the
    party's life then."""

    def __init__(self, search=True, **kw):
        super().__init__(**kw)
        self.search, self.answers = search, []

    def for_game(self, game):
        player = StrongPlayer(self, game) if self.search else self.base
        answers = self.answers

        def answer(d):
            a = player(d)
            if d.kind == "dice-out" and game.checkpoint is not None:
                f = d.fight
                answers.append((a, [h.life for h in f.heroes if not h.fainted], f.retrieval_damage))
            return a

        answer.records = True
        return answer


@pytest.mark.parametrize("search", [False, True], ids=["default", "strong"])
def test_out_of_dice_when_retrieving_would_fell_every_hero_takes_a_white_die(bank, search):
    """The position: every hero starts at 1 life with the Chest full, so once the colored dice run out
    (the misses before have felled some), retrieving them (every hero loses the monster's level, at
    least 1) would make every standing hero faint and lose the game; a white die keeps it going."""
    pol = Watched(search, rollouts=4, max_rollouts=8)

    def run(src):
        for game in range(6):
            g = Game(spec_of(), src, pol, game=game, log=False)
            g.white = 9
            for h in g.heroes:
                h.life = 1
            g.play()

    play(run, bank, 1)
    fatal = [a for a, lives, cost in pol.answers if all(life - cost < 1 for life in lives)]
    assert fatal, pol.answers  # the position was reached
    assert set(fatal) == {"white"}, pol.answers


def test_the_banks_part_of_a_strong_game_says_its_games_and_how_to_skip_them(tmp_path, monkeypatch, capsys):
    """The bank's part replays games on bootstrap banks: for a searching policy that is as long as the
    games were, so it says how many games and how to skip them, and counts them on a bar (not a
    silent wait of many minutes)."""
    from synthetic_bank import use_synthetic_workers

    use_synthetic_workers(monkeypatch)
    argv = ["game", "base", "--games", "3", "--policy", "strong:rollouts=2,max_rollouts=2",
            "--bank", str(tmp_path / "bank"), "--bank-throws", "100", "--bank-replicates", "2"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "the bank's uncertainty: 3 games on 2 bootstrap banks (6 games of strong" in err
    assert "--bank-replicates 0 skips them" in err
