"""tabular/lazy_names.py: a package's public names imported when first used."""

from __future__ import annotations

import subprocess
import sys

import pytest

import tabular
import tabular.display
import tabular.service


@pytest.mark.parametrize("package", [tabular, tabular.display, tabular.service])
def test_every_public_name_is_found_and_listed(package):
    for name in package.__all__:
        assert getattr(package, name) is not None
    assert set(package.__all__) <= set(dir(package))


@pytest.mark.parametrize("package", [tabular, tabular.display, tabular.service])
def test_a_name_nobody_exports_is_an_attribute_error_naming_the_package(package):
    with pytest.raises(AttributeError, match=f"module {package.__name__!r} has no attribute 'nope'"):
        package.nope  # noqa: B018


def test_a_name_is_imported_with_its_module_only_when_first_used():
    code = (
        "import sys, tabular.display as d; assert 'tabular.display.charts' not in sys.modules;"
        "assert 'tabular.display.jobs' not in sys.modules; d.ingest_html;"
        "assert 'tabular.display.jobs' in sys.modules and 'ingest_html' in vars(d)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
