"""pydantic-ai (OpenAIChatModel's streamed response) as an openai-chat strategy."""
