from assistant.cli import main

if __name__ == "__main__":  # `python -m assistant`; importing the module runs nothing
    main()
