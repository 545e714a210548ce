/**
 * The snapshot name rule (CONTRACT §9), written once: the request schema, the OpenAPI path parameter
 * and the server's file-name check all read it. Letters, digits, `.`, `_` and `-`, starting with a
 * letter or digit, at most 64: safe as a file name anywhere (no `/`, no leading `.`). No `g` flag, so
 * `.test()` keeps no state between calls.
 */
export const SNAPSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** What a name that breaks the rule is told (`validation_failed`, `param: "name"`). */
export const SNAPSHOT_NAME_MESSAGE = 'name must be 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit.';
