{user_keys: [.semconv_attributes | keys[] | select(startswith("user."))]}
