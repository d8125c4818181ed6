"""Settings and configuration files: initializationOptions, `workspace/didChangeConfiguration`
(pulling `workspace/configuration` when the client sends no values), and
`workspace/didChangeWatchedFiles`, registered dynamically for TOML files: configuration files,
the files they `extend`, and the backend profiles they define."""

from __future__ import annotations

import os

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from tilecheck.config.resolver import CONFIG_FILES
from tilecheck.server.diagnostics import recheck
from tilecheck.server.session import Session
from tilecheck.server.settings import SECTION

WATCH_ID = "tilecheck-configuration-files"
WATCHED = "**/*.toml"


def register(server: LanguageServer, session: Session) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        if params.initialization_options is not None:
            session.apply_settings(params.initialization_options)
            session.settings_given = True

    @server.feature(types.INITIALIZED)
    async def initialized(params: types.InitializedParams) -> None:
        if _supports_watch_registration(session):
            options = types.DidChangeWatchedFilesRegistrationOptions(
                watchers=[types.FileSystemWatcher(glob_pattern=WATCHED)]
            )
            registration = types.Registration(
                id=WATCH_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options
            )
            try:
                await server.client_register_capability_async(types.RegistrationParams([registration]))
                session.watches_configuration = True
            except Exception as error:
                session.log(
                    f"could not register for configuration-file changes: {error}", types.MessageType.Warning
                )
        if not session.settings_given and await _pull_settings(server, session):
            recheck(session)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
        settings = params.settings
        if isinstance(settings, dict) and settings:
            session.apply_settings(settings.get(SECTION, settings))
        elif not await _pull_settings(server, session):
            return
        recheck(session)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(params: types.DidChangeWatchedFilesParams) -> None:
        changed = [path for path in (to_fs_path(change.uri) for change in params.changes) if path]
        affected = affected_documents(session, changed)
        if not affected:
            return
        session.reset()
        session.log(f"configuration changed ({', '.join(changed)}): re-checking {len(affected)} document(s)")
        recheck(session, affected)


def _supports_watch_registration(session: Session) -> bool:
    workspace = session.capabilities.workspace
    watched = workspace.did_change_watched_files if workspace is not None else None
    return bool(watched is not None and watched.dynamic_registration)


async def _pull_settings(server: LanguageServer, session: Session) -> bool:
    """Ask the client for the `tilecheck` section (clients that push no values); True if applied."""
    workspace = session.capabilities.workspace
    if workspace is None or not workspace.configuration:
        return False
    try:
        values = await server.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
        )
    except Exception as error:
        session.log(f"workspace/configuration failed: {error}", types.MessageType.Warning)
        return False
    if values and values[0] is not None:
        session.apply_settings(values[0])
        return True
    return False


def affected_documents(session: Session, changed: list[str]) -> list[str]:
    """Open documents whose configuration a change to `changed` may alter: a configuration file
    in one of their parent directories, or a file in their `extend` chain."""
    affected = []
    for uri, document in session.documents.items():
        chain = _chain(session, document.path)
        directory = os.path.dirname(os.path.abspath(document.path))
        for path in map(os.path.abspath, changed):
            config_dir = os.path.dirname(path)
            governs = os.path.basename(path) in CONFIG_FILES and (
                directory == config_dir or directory.startswith(config_dir.rstrip(os.sep) + os.sep)
            )
            if governs or chain is None or path in chain:
                affected.append(uri)
                break
    return affected


def _chain(session: Session, path: str) -> set[str] | None:
    """The configuration files `path`'s settings were read from; None when they cannot be
    resolved (a broken configuration: any TOML change may repair it)."""
    try:
        settings = session.workspace_for(path).settings_for(path)
    except Exception:
        return None
    return {os.path.abspath(config.path) for config in settings.chain}
