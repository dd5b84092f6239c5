/** The command's name, as installed (package.json "bin"). Renaming the command is a change here. */
export const PROGRAM_NAME = 'agent-proxy';

/** How every line of ours on stderr begins (errors, warnings, notices): one voice, whatever says it. */
export const LINE_PREFIX = `${PROGRAM_NAME}: `;
