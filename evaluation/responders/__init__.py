"""Responders: what answers the questions, and what it is shown.

responder.py  the model under test (LLM) and the offline baselines (cover-all/target-only/empty)
prompting.py  answer prompts per setting and strategy, from prompts/eval/
contexts.py   what the responder sees per setting (Base/Oracle/Noisy/RAG-BM25/RAG-dense) and
              the faithfulness ground truth (--gt evidence|full)
tokens.py     token counts where the server reports no usage
"""
