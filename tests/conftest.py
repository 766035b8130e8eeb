import pytest

from sim.specs.scenario import Scenario


@pytest.fixture(scope="session")
def magma_d8():
    return Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual")
