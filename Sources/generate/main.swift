print("generate: not built yet")
