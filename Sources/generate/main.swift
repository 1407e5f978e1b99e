print("generate")
