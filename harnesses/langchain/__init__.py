"""LangChain (langchain-openai + langchain-core) as an openai-chat strategy."""
