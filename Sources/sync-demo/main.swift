print("sync-demo")
