"""Rules about the files themselves: unreadable, undecodable or unparsable files, internal errors, suppressions."""
