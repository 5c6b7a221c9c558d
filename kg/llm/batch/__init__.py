"""Provider batch mode (`--batch`): requests go out as OpenAI-style batch jobs (docs/batch.md).

`BatchBook` (per client) answers a request from a finished batch line or records it as a line
to send (`BatchPending`); `BatchDriver` sends the recorded lines as batches, keeps each batch
as an `:LLMBatch` node in the graph, polls them and feeds their output back to the books.
"""

from kg.llm.batch.book import MAX_TRIES, BatchBook, BatchLineFailed, BatchPending

__all__ = ["MAX_TRIES", "BatchBook", "BatchLineFailed", "BatchPending"]
