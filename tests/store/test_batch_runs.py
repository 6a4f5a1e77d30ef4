"""RunStack and RunSet (projections/batch_runs.py) are the list and the set they stand for.

A timeline restored from a snapshot pushes, pops and asks them as it would a list and a set; each
random sequence of operations is run on both, and after each step they hold the same numbers, and
the runs kept are the ones made from those numbers afresh (so a snapshot's bytes depend only on the
numbers), packed and unpacked to the same.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tabletrail.projections.batch_runs import RunSet, RunStack

NUMBERS = st.integers(0, 40)  # few enough that runs form and break often
STACK_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("append"), NUMBERS),
        st.tuples(st.just("next"), st.sampled_from([1, -1])),  # the last number ± 1: runs grow
        st.tuples(st.just("pop"), st.just(0)),
        st.tuples(st.just("pop at"), st.integers(-5, 5)),
        st.tuples(st.just("insert"), st.integers(-5, 50)),
        st.tuples(st.just("set"), st.integers(-5, 5)),
        st.tuples(st.just("del"), st.integers(-5, 5)),
        st.tuples(st.just("push run"), st.tuples(NUMBERS, NUMBERS)),
        st.tuples(st.just("reverse"), st.just(0)),
    ),
    max_size=60,
)


def same_stack(stack: RunStack, plain: list[int]) -> None:
    assert list(stack) == plain and len(stack) == len(plain)
    assert stack == plain and plain == stack
    assert list(reversed(stack)) == plain[::-1]
    assert stack.runs() == RunStack(plain).runs(), "the runs are the ones the numbers make afresh"
    assert RunStack.unpacked(stack.packed()) == stack
    assert [stack[i] for i in range(-len(plain), len(plain))] == plain + plain
    if plain:
        assert stack[-1] == plain[-1] and stack[1:-1] == plain[1:-1]


@settings(max_examples=300, deadline=None)
@given(start=st.lists(NUMBERS, max_size=30), ops=STACK_OPS)
def test_a_run_stack_is_the_list_it_stands_for(start: list[int], ops: list[tuple[str, Any]]):
    plain = list(start)
    stack = RunStack.unpacked(RunStack(start).packed())  # as a snapshot gives it back
    same_stack(stack, plain)
    for op, arg in ops:
        if op == "append":
            stack.append(arg)
            plain.append(arg)
        elif op == "next" and plain:
            stack.append(plain[-1] + arg)
            plain.append(plain[-1] + arg)
        elif op == "pop" and plain:
            assert stack.pop() == plain.pop()
        elif op == "pop at" and plain:
            i = arg % len(plain) - (len(plain) if arg < 0 else 0)
            assert stack.pop(i) == plain.pop(i)
        elif op == "insert":
            stack.insert(arg, 7)
            plain.insert(arg, 7)
        elif op == "set" and plain:
            stack[arg % len(plain)] = 3
            plain[arg % len(plain)] = 3
        elif op == "del" and plain:
            del stack[arg % len(plain)]
            del plain[arg % len(plain)]
        elif op == "push run":
            first, last = arg
            stack.push_run(first, last)
            plain.extend(range(first, last + 1) if last >= first else range(first, last - 1, -1))
        elif op == "reverse":
            stack.reverse()
            plain.reverse()
        same_stack(stack, plain)
    for n in range(-1, 42):
        assert (n in stack) == (n in plain)
    if plain:
        assert stack.index(plain[-1]) == plain.index(plain[-1])


def test_an_empty_stack_says_so_as_a_list_does():
    stack = RunStack()
    assert not stack and len(stack) == 0 and list(stack) == []
    with pytest.raises(IndexError):
        stack.pop()
    with pytest.raises(IndexError):
        stack[-1]
    assert RunStack.unpacked(stack.packed()) == [] and RunSet.unpacked(RunSet().packed()) == set()


def test_the_packed_form_is_a_count_and_runs_and_nothing_else_is_taken():
    assert len(RunStack([5, 6, 7, 8, 20]).packed()) == 8 * (1 + 2 * 2)  # count, then (5, 8), (20, 20)
    for bad in (b"", b"\x00" * 16, b"\x00" * 12):
        with pytest.raises(ValueError):
            RunStack.unpacked(bad)


SET_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("add"), NUMBERS),
        st.tuples(st.just("discard"), NUMBERS),
        st.tuples(st.just("update"), st.lists(NUMBERS, max_size=6)),
        st.tuples(st.just("remove"), NUMBERS),
        st.tuples(st.just("pop"), st.just(0)),
    ),
    max_size=60,
)


def same_set(made: RunSet, plain: set[int]) -> None:
    assert set(made) == plain and len(made) == len(plain)
    assert made == plain and plain == made
    assert list(made) == sorted(plain)
    assert made.runs() == RunSet(plain).runs(), "the runs are the ones the numbers make afresh"
    assert RunSet.unpacked(made.packed()) == made
    assert all((n in made) == (n in plain) for n in range(-1, 42))


@settings(max_examples=300, deadline=None)
@given(start=st.lists(NUMBERS, max_size=30), ops=SET_OPS)
def test_a_run_set_is_the_set_it_stands_for(start: list[int], ops: list[tuple[str, Any]]):
    plain = set(start)
    made = RunSet.unpacked(RunSet(start).packed())
    same_set(made, plain)
    for op, arg in ops:
        if op == "add":
            made.add(arg)
            plain.add(arg)
        elif op == "discard":
            made.discard(arg)
            plain.discard(arg)
        elif op == "update":
            made.update(arg)
            plain.update(arg)
        elif op == "remove":
            if arg in plain:
                made.remove(arg)
                plain.remove(arg)
            else:
                with pytest.raises(KeyError):
                    made.remove(arg)
        elif op == "pop" and plain:
            n = made.pop()
            plain.remove(n)
        same_set(made, plain)
    assert made | {99} == plain | {99} and made & {1, 2} == plain & {1, 2}


@given(st.lists(st.tuples(NUMBERS, NUMBERS), max_size=12))
def test_a_set_of_runs_as_an_older_snapshot_kept_them_is_the_set_of_their_numbers(
    runs: list[tuple[int, int]],
):
    made = RunSet.of_runs(runs)
    assert made == {n for a, b in runs for n in range(a, b + 1)}
    assert made.runs() == RunSet(made).runs()
