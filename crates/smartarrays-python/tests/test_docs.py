"""The examples in the docstrings (package, class, stubs) run and print what they show."""

import ast
import doctest
import pathlib

import smartarrays as sa

PACKAGE = pathlib.Path(sa.__file__).parent


def run_examples(text: str, name: str) -> None:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {}, name, None, 0)
    assert test.examples, f"{name} has no examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} example(s) of {name} failed"


def test_package_docstring() -> None:
    run_examples(sa.__doc__ or "", "smartarrays")


def test_class_docstring() -> None:
    run_examples(sa.SmartArray.__doc__ or "", "SmartArray")


def test_stub_docstrings() -> None:
    stub = PACKAGE / "_native.pyi"
    assert (PACKAGE / "py.typed").exists()
    tree = ast.parse(stub.read_text())
    documented = [node for node in ast.walk(tree) if isinstance(node, (ast.ClassDef, ast.FunctionDef))]
    with_examples = [node for node in documented if ">>>" in (ast.get_docstring(node) or "")]
    assert len(with_examples) >= 5
    for node in with_examples:
        run_examples(ast.get_docstring(node) or "", f"_native.pyi:{node.name}")
