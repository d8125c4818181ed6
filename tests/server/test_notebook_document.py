"""A notebook opened as a text document (its JSON): one TL003 that says the server does not check
notebooks, never a silent pass over the JSON, and nothing to fix."""

from __future__ import annotations

import json

import pytest

from tests.server.support import Server, diagnostics, open_document, start, summary


@pytest.mark.asyncio
async def test_a_notebook_text_document_gets_one_diagnostic_saying_why(tmp_path):
    source = ["import tilelang.language as T\n", "for i in T.Parallel(4):\n", "    pass\n"]
    document = {
        "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": source}],
        "metadata": {},
    }
    path = tmp_path / "k.ipynb"
    path.write_text(json.dumps(document, indent=1) + "\n")
    async with Server() as client:
        await start(client, "visual-studio-code", tmp_path)
        uri = open_document(client, path)
        items = await diagnostics(client, uri)
        assert summary(items) == [("TL003", 0, 0)]
        assert items[0].message.startswith("Cannot read file: it is a notebook; the language server checks")
