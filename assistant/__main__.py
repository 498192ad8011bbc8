from assistant.cli import main

main()
