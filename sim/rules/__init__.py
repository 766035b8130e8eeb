"""Rules layer: pure game logic over plain numbers (trace, outcome, classifier, requirements, templates,
effects); no PyBullet."""
