"""The records layer (.importlinter). What every layer shares: sample records, errors, the JSON text writer and a run folder's files and their reader."""
