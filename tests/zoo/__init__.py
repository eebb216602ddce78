"""The zoo: deliberately broken strategies, and the tests that prove the suite fails each one."""
