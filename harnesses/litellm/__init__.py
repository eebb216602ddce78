"""litellm (stream_chunk_builder) as an openai-chat strategy."""
