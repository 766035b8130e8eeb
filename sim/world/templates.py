"""Templates as bodies attached to a world: they rest on a convex prism of the board's outline, and get
friction and restitution that leave every other body's physics as it was."""

from __future__ import annotations

import math

from sim.world.flip import add_flip_board

PRISM_NAME = "board:under-templates"


def templates_on_prism(ph, board, template_names: list[str], die_names: list[str]) -> None:
    """Templates rest on the board's outline as a convex prism (as in the flip world), not on the
    board's ~150 convex pieces (each a separate contact test under a template). Dice still meet only
    the board's pieces (and its holes); the prism ("board:under-templates") collides with templates only."""
    add_flip_board(ph, board, name=PRISM_NAME)
    for n in template_names:
        ph.collide(n, "board", False)
    for n in die_names:
        ph.collide(n, PRISM_NAME, False)


def fit_template_materials(ph, names: list[str]) -> None:
    """Friction / restitution for template bodies added to a world whose other bodies are final.

    `Physics.finalize_materials` solves every body's factor at once (Bullet multiplies the two bodies'
    values); re-solving with templates in the world would change the dice's and the board's factors
    and so every throw. Instead each template gets the factor that best fits its own pairs (log least
    squares) against the others' values as they are, so a throw that never touches a template is the
    very throw of the same world without templates. Contact damping of the dice against templates
    follows the material table as for any body."""
    fixed = [n for n in ph.names() if n not in names]
    info = {n: ph.surface(n) for n in fixed}
    for n in names:
        m = ph.material_of(n)
        lf, le = [], []
        self_pair = ph.materials.pair(m, m)
        if self_pair is not None:
            lf.append(0.5 * math.log(self_pair.friction))
            le.append(0.5 * math.log(max(self_pair.restitution, 1e-3)))
        for o in fixed:
            if o.startswith("board:under"):
                continue
            pair = ph.materials.pair(m, ph.material_of(o))
            if pair is None:
                continue
            w = 10 if o.startswith("die") else 1  # die-on-template pairs matter most
            lf += [math.log(pair.friction) - math.log(max(info[o][0], 1e-9))] * w
            le += [math.log(max(pair.restitution, 1e-3)) - math.log(max(info[o][1], 1e-9))] * w
            if o.startswith("die") and pair.contact_damping > 0:
                ph.set_pair_damping(o, n, pair.contact_damping)
        if lf:
            ph.set_surface(n, math.exp(sum(lf) / len(lf)), math.exp(sum(le) / len(le)))
    for n in ph.names():
        if n.startswith("board:under"):  # the prism under templates feels like the board
            ph.set_surface(n, *(info.get("board") or ph.surface("board")))
