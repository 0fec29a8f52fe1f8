"""The type stub braid/_braid.pyi names every public function, class and
parameter of the extension, in order, and every public object has a
docstring (what an editor shows)."""

import ast
import inspect
import os
import unittest

import braid
from braid import _braid

STUB = os.path.join(os.path.dirname(braid.__file__), "_braid.pyi")


def split_top_level(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def pybind_params(func):
    """Parameter names from pybind11's signature line: 'name(a: int, *, b: str = ...) -> T'."""
    line = func.__doc__.splitlines()[0]
    inner = line[line.index("(") + 1: line.rindex(") ->")]
    return [p.split(":")[0].split("=")[0].strip() for p in split_top_level(inner)]


def stub_params(node):
    a = node.args
    names = [x.arg for x in a.posonlyargs + a.args]
    if a.kwonlyargs:
        names += ["*"] + [x.arg for x in a.kwonlyargs]
    return names


class Stub(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(STUB) as f:
            cls.tree = ast.parse(f.read())
        cls.functions = {n.name: n for n in cls.tree.body if isinstance(n, ast.FunctionDef)}
        cls.classes = {n.name: n for n in cls.tree.body if isinstance(n, ast.ClassDef)}

    def test_every_module_name_is_in_the_stub(self):
        public = {n for n in dir(_braid) if not n.startswith("__")}
        self.assertEqual(public, set(self.functions) | set(self.classes))

    def test_function_parameters_match(self):
        for name, node in self.functions.items():
            with self.subTest(function=name):
                self.assertEqual(pybind_params(getattr(_braid, name)), stub_params(node))

    def test_class_members_match(self):
        for cname, cnode in self.classes.items():
            cls = getattr(_braid, cname)
            for member in cnode.body:
                if not isinstance(member, ast.FunctionDef):
                    continue
                with self.subTest(member=f"{cname}.{member.name}"):
                    obj = inspect.getattr_static(cls, member.name)
                    self.assertTrue(hasattr(cls, member.name))
                    if isinstance(obj, property):
                        continue
                    func = obj.__func__ if isinstance(obj, staticmethod) else obj
                    if member.name.startswith("__"):
                        continue
                    self.assertEqual(pybind_params(func), stub_params(member))
            public = {n for n in vars(cls) if not n.startswith("_")}
            stubbed = {m.name for m in cnode.body if isinstance(m, ast.FunctionDef)}
            self.assertLessEqual(public, stubbed, cname)

    def test_public_objects_have_docstrings(self):
        for name in braid.__all__:
            obj = getattr(braid, name)
            if isinstance(obj, str):
                continue
            with self.subTest(name=name):
                self.assertTrue(obj.__doc__ and len(obj.__doc__) > 20, name)
        for name in ("match", "distance", "config", "time_ns", "key"):
            self.assertTrue(getattr(braid.LookupResult, name).__doc__)
        self.assertIn("Releases the GIL", braid.PresetTable.lookup.__doc__)


if __name__ == "__main__":
    unittest.main()
